// Specialization constants for a pipeline: typed values by SpecId, kept sorted so that equal sets
// give equal pipeline cache keys.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace vkattn {

// The type a specialization constant is declared with in GLSL.
enum class SpecKind : uint8_t { Bool, Uint, Int, Float };
const char* toString(SpecKind kind) noexcept;

// Specialization constants by id: the names of shaders/include/kernel_interface.h, e.g.
// set(ATTN_SPEC_HAS_BIAS, true). Each id may be set once; Pipeline checks ids and types against
// the module's declarations.
class SpecConstants {
 public:
  struct Entry {
    uint32_t id;
    uint32_t word;
    SpecKind kind;
  };
  SpecConstants& set(uint32_t id, bool value) { return put(id, value ? 1u : 0u, SpecKind::Bool); }
  SpecConstants& set(uint32_t id, uint32_t value) { return put(id, value, SpecKind::Uint); }
  SpecConstants& set(uint32_t id, int32_t value) { return put(id, static_cast<uint32_t>(value), SpecKind::Int); }
  SpecConstants& set(uint32_t id, float value) { return put(id, std::bit_cast<uint32_t>(value), SpecKind::Float); }
  const std::vector<Entry>& entries() const noexcept { return m_entries; }
  // (id, word) pairs in id order: the pipeline cache key.
  std::vector<uint32_t> key() const;

 private:
  SpecConstants& put(uint32_t id, uint32_t word, SpecKind kind);
  std::vector<Entry> m_entries;  // sorted by id
};

}  // namespace vkattn
