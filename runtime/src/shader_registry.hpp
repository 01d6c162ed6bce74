// The embedded SPIR-V modules by id, from the table cmake/VkattnShaders.cmake generates.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace vkattn::detail {

struct ShaderEntry {
  const char* name;
  std::span<const uint32_t> code;
};

const std::vector<ShaderEntry>& shaderRegistry();

}  // namespace vkattn::detail
