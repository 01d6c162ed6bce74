// Rewrites a SPV_NV_cooperative_matrix module into the equivalent SPV_KHR_cooperative_matrix one,
// so that kernels written for Debian 12's glslc (which knows only GL_NV_cooperative_matrix) also
// run through VK_KHR_cooperative_matrix (AMD RDNA3, Intel Arc, NVIDIA).
//
// Each OpTypeCooperativeMatrixNV gets the Use its values have: operand A, B or C/result of
// OpCooperativeMatrixMulAddNV, carried across conversions (KHR conversions keep the Use); a type
// never multiplied becomes an accumulator. A type used in two roles is an error: declare the
// fragments as distinct types (e.g. dimensions from distinct specialization constants).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "spirv_words.hpp"

namespace vkattn::spirv {

// Throws SpirvError naming the instruction or type that cannot be rewritten. A module without
// the CooperativeMatrixNV capability is an error too (nothing to rewrite).
std::vector<uint32_t> rewriteNvToKhr(std::span<const uint32_t> words);

}  // namespace vkattn::spirv
