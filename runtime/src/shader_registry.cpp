#include "shader_registry.hpp"

#include <iterator>
#include <string>

#include "shader_id.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::detail {
namespace {

// The word arrays and kShaderTable, generated from shaders/CMakeLists.txt's vkattn_shader calls.
#include "runtime_shader_table.inc"

}  // namespace

ShaderId StorageVariants::of(DType storage) const {
  if (storage == DType::F32) return f32;
  if (storage == DType::F16) return f16;
  throw Error(std::string("no module among ") + f32.name + " and " + f16.name + " stores " + toString(storage));
}

ShaderId f16Only(ShaderId module, DType storage) {
  if (storage == DType::F16) return module;
  throw Error(std::string(module.name) + " stores f16 alone, not " + toString(storage));
}

const std::vector<ShaderEntry>& shaderRegistry() {
  static const std::vector<ShaderEntry> entries(std::begin(kShaderTable), std::end(kShaderTable));
  return entries;
}

}  // namespace vkattn::detail
