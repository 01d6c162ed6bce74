// Storage formats beyond f32 and f16: bf16 (the upper half of an IEEE binary32) and ggml's block
// formats, with their one host encoder and decoder each (io's ggml_quant calls these).
//   Q8_0, Q4_0 (K/V caches and weights): a block holds 32 consecutive elements of one row: an f16
//   scale d, then 32 signed 8-bit values q (Q8_0, 34 bytes: x = d * q) or 16 bytes of 4-bit
//   values (Q4_0, 18 bytes: byte i holds element i in its low nibble and element i + 16 in its
//   high one, x = d * (nibble - 8)).
//   Q4_K, Q5_K, Q6_K (weights only): super-blocks of 256 elements, 144, 176 and 210 bytes, in
//   ggml's layouts (base/src/k_quant_blocks.hpp describes them and the encoder's error bound).
// The rows attention kernel decodes the K/V formats itself (shaders/include/kv_formats.glsl),
// linear() the weights formats (shaders/include/weight_formats.glsl).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "vkattn/core/dtype.hpp"

namespace vkattn {

// Elements per block: 32 for Q8_0 and Q4_0, 256 for the K-quants, 1 for every other dtype.
int64_t blockElements(DType dtype) noexcept;
// Bytes per block (per element where blockElements is 1).
std::size_t blockBytes(DType dtype) noexcept;
bool isBlockFormat(DType dtype) noexcept;
// The K/V storage formats: bf16, Q8_0 and Q4_0 (attention's k and v only).
bool isKvStorageFormat(DType dtype) noexcept;
// The block formats linear() takes as weights: Q8_0, Q4_0, Q4_K, Q5_K, Q6_K.
bool isWeightFormat(DType dtype) noexcept;
// Bytes that `elements` consecutive elements occupy, a partial block counted whole.
std::size_t storageBytes(DType dtype, int64_t elements) noexcept;

// IEEE binary32 <-> bfloat16 (round to nearest even; inf kept, NaN stays NaN).
uint16_t floatToBf16(float value) noexcept;
float bf16ToFloat(uint16_t bits) noexcept;

// Encodes `values` (a whole number of blocks for the block formats) as dtype's bytes. Q8_0 takes
// d = max|x| / 127 and q = round(x / d); Q4_0 takes the element of largest magnitude m,
// d = m / -8 and q = min(15, floor(x / d + 8.5)), as ggml's reference quantizers do; the
// K-quants' encoder is vkattn's own (k_quant_blocks.hpp: its error bound). Block formats refuse
// NaN, infinity and blocks whose scale overflows f16 (InvalidArgument naming "values").
std::vector<std::byte> encodeValues(DType dtype, std::span<const float> values);
// Decodes `count` elements of dtype from `bytes` (storageBytes(dtype, count) of them).
std::vector<float> decodeValues(DType dtype, std::span<const std::byte> bytes, int64_t count);

}  // namespace vkattn
