#include "shader_registry.hpp"

#include <iterator>

namespace vkattn::detail {
namespace {

// The word arrays and kShaderTable, generated from shaders/CMakeLists.txt's vkattn_shader calls.
#include "runtime_shader_table.inc"

}  // namespace

const std::vector<ShaderEntry>& shaderRegistry() {
  static const std::vector<ShaderEntry> entries(std::begin(kShaderTable), std::end(kShaderTable));
  return entries;
}

}  // namespace vkattn::detail
