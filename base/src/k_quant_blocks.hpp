// ggml's K-quant super-blocks of 256 elements (Q4_K, Q5_K, Q6_K), as ggml's format defines them:
// eight sub-blocks of 32 (Q4_K, Q5_K) or sixteen of 16 (Q6_K), each with its own scale (and min).
// Decoding performs the float operations in the order ggml's reference dequantizer does, so the
// values are bit-identical to it (the source file is compiled with -ffp-contract=off: a fused
// multiply-add would round differently). Encoding is vkattn's own, from the format definition:
// per sub-block, the min (Q4_K, Q5_K) is rounded up and the scale rounded up to the next 6-bit
// (8-bit for Q6_K) step of the super-block's f16 factor, so no element is clipped and each lies
// within half a quantization step of its decoded value:
//   Q4_K, Q5_K: |x - x'| <= (1 + 1/63)^2 R / (2 Q) + 2^-24   (Q = 15 or 31; R = max(0, max x) -
//               min(0, min x) over the super-block)
//   Q6_K:       |x - x'| <= (1 + 1/127) A / 62 + 2^-24       (A = max |x| over the super-block)
// where 2^-24, f16's subnormal step, bounds the rounding up of factors too small for normal f16s
// (io/tests/test_k_quants.cpp and io/tests/gguf_crosscheck.py check both, with a relative float slack).
#pragma once

#include <cstdint>

namespace vkattn::detail {

inline constexpr int kQK_K = 256;

// f16 d, f16 dmin, 12 bytes of packed 6-bit scales and mins, 128 bytes of 4-bit values.
void dequantizeQ4_KBlock(const uint8_t* block, float* out);
// f16 d, f16 dmin, 12 bytes of scales and mins, 32 bytes of fifth bits, 128 bytes of low nibbles.
void dequantizeQ5_KBlock(const uint8_t* block, float* out);
// 128 bytes of low nibbles, 64 bytes of high two-bit pairs, 16 int8 scales, f16 d.
void dequantizeQ6_KBlock(const uint8_t* block, float* out);

// 256 finite values into one block; InvalidArgument("values") for NaN, infinity or a range whose
// f16 factors overflow.
void quantizeQ4_KBlock(const float* x, uint8_t* block);
void quantizeQ5_KBlock(const float* x, uint8_t* block);
void quantizeQ6_KBlock(const float* x, uint8_t* block);

}  // namespace vkattn::detail
