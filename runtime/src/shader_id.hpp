// The runtime's embedded modules by typed id (runtime_shader_ids.hpp, generated from
// shaders/CMakeLists.txt): an op names the module it records, or the pair it picks from by the
// tensors' storage, as a constant that exists only if the module is built.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include "vkattn/core/dtype.hpp"

namespace vkattn::detail {

class ShaderId {
 public:
  constexpr ShaderId() = default;
  // Only the generated header names modules: an op cannot pass a string where an id belongs.
  constexpr explicit ShaderId(const char* id) : name(id) {}
  const char* name = nullptr;  // the module's id in the registry (PipelineDesc::shader)
};

// A kernel built for f32 and for f16 storage.
struct StorageVariants {
  ShaderId f32, f16;
  // The module for tensors stored as `storage`; the op's dtype checks have refused any other
  // (an Error here is the runtime's bug, not the caller's).
  ShaderId of(DType storage) const;
};

// A family built once per storage format (generated as shaders::<family>_by_format from
// vkattn_shader_formats() in shaders/CMakeLists.txt): the module, or the f32/f16 pair, of each.
template <typename Module, std::size_t N>
struct ByFormat {
  std::array<std::pair<DType, Module>, N> modules;
  // The format's module, or nullptr where the family has none.
  constexpr const Module* find(DType format) const {
    for (const auto& [built, module] : modules)
      if (built == format) return &module;
    return nullptr;
  }
};

// `module`, a kernel built for f16 storage alone, for tensors stored as `storage` (an Error for
// any other: the op's checks refuse it first).
ShaderId f16Only(ShaderId module, DType storage);

}  // namespace vkattn::detail
