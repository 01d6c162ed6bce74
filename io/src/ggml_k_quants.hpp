// Dequantization of ggml's K-quant super-blocks of 256 elements, transcribed from ggml's
// dequantize_row_q4_K / q5_K / q6_K (ggml-quants.c) with the same order of float operations.
// Its source file is compiled with -ffp-contract=off: a fused multiply-add would round differently.
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
