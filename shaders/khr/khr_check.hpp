// Structural checks of a SPV_KHR_cooperative_matrix module, standing in for spirv-val where the
// installed SPIRV-Tools predate the extension (Debian 12 ships 2023.1): KHR capability and
// extension present and no NV cooperative-matrix instruction left; result ids unique and below
// the header's bound; every matrix type, load, store, product, length and conversion with
// operands of the right kinds (32-bit integer constants, defined earlier), matching shapes and
// uses A / B / accumulator.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vkattn::spirv {

// Every problem found, one sentence each; empty when the module passes.
std::vector<std::string> checkKhrModule(std::span<const uint32_t> words);

}  // namespace vkattn::spirv
