// Dequantization of ggml's K-quant super-blocks of 256 elements, as ggml's format defines them:
// eight sub-blocks of 32 (Q4_K, Q5_K) or sixteen of 16 (Q6_K), each with its own scale (and min),
// and the float operations in the order ggml's reference dequantizer performs them, so the values
// are bit-identical to it. The source file is compiled with -ffp-contract=off: a fused multiply-add
// would round differently.
#pragma once

#include <cstdint>

namespace vkattn {

inline constexpr int kQK_K = 256;

// f16 d, f16 dmin, 12 bytes of packed 6-bit scales and mins, 128 bytes of 4-bit values.
void dequantizeQ4_KBlock(const uint8_t* block, float* out);
// f16 d, f16 dmin, 12 bytes of scales and mins, 32 bytes of fifth bits, 128 bytes of low nibbles.
void dequantizeQ5_KBlock(const uint8_t* block, float* out);
// 128 bytes of low nibbles, 64 bytes of high two-bit pairs, 16 int8 scales, f16 d.
void dequantizeQ6_KBlock(const uint8_t* block, float* out);

}  // namespace vkattn
