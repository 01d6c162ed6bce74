// What a SPIR-V module declares of its interface: the type of each specialization constant (by
// SpecId) and the storage-buffer bindings of descriptor set 0. Read once per pipeline, so that a
// constant or buffer bound under the wrong name fails loudly instead of computing garbage.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <span>

#include "vkattn/core/spec_constants.hpp"

namespace vkattn::detail {

struct SpirvInterface {
  std::map<uint32_t, SpecKind> specConstants;  // SpecId -> declared type
  std::set<uint32_t> bindings;                 // set 0 binding numbers
};

// Throws Error when the words are not a SPIR-V module.
SpirvInterface readSpirvInterface(std::span<const uint32_t> words);

}  // namespace vkattn::detail
