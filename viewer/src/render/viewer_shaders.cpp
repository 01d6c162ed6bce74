#include "render/viewer_shaders.hpp"

#include "vkattn/core/error.hpp"

namespace vkattn::viewer::shaders {

std::span<const uint32_t> code(const std::string& id) {
  for (const ShaderEntry& entry : shaderRegistry())
    if (id == entry.name) return entry.code;
  throw Error("the viewer embeds no shader named '" + id + "'");
}

}  // namespace vkattn::viewer::shaders
