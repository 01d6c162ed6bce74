#include "spirv/viewer_shaders.hpp"

#include <iterator>

#include "vkattn/core/error.hpp"

namespace vkattn::viewer::shaders {
namespace {

// The word arrays and kShaderTable, generated from viewer/CMakeLists.txt's vkattn_shader calls.
#include "viewer_shader_table.inc"

}  // namespace

const std::vector<ShaderEntry>& shaderRegistry() {
  static const std::vector<ShaderEntry> entries(std::begin(kShaderTable), std::end(kShaderTable));
  return entries;
}

std::span<const uint32_t> code(const std::string& id) {
  for (const ShaderEntry& entry : shaderRegistry())
    if (id == entry.name) return entry.code;
  throw Error("the viewer embeds no shader named '" + id + "'");
}

}  // namespace vkattn::viewer::shaders
