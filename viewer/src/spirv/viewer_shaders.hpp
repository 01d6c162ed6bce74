// The viewer's own embedded SPIR-V (viewer/shaders, tabled by vkattn_shader_registry with
// REGISTRY viewer): kernels the viewer dispatches through the runtime's public pipeline API.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vkattn::viewer::shaders {

struct ShaderEntry {
  const char* name;
  std::span<const uint32_t> code;
};

const std::vector<ShaderEntry>& shaderRegistry();

// The words of module `id`; throws vkattn::Error when the viewer has none of that name.
std::span<const uint32_t> code(const std::string& id);

}  // namespace vkattn::viewer::shaders
