// CPU conversion between float and ggml's tensor types, with the block layouts and the rounding
// of ggml's reference code (ggml-quants.c), so results are bit-identical to ggml's and to
// gguf-py's numpy `gguf.quants`:
//   dequantize: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K
//   quantize:   F32, F16, BF16, Q8_0, Q4_0 with ggml's reference rounding, and Q4_K, Q5_K, Q6_K
//               with vkattn's own encoder (its bytes decode by ggml's rules; the error bound is in
//               base/src/k_quant_blocks.hpp)
// (core/storage_formats.hpp holds the one encoder and decoder of each).
// Sizes that are not whole blocks, or bytes that do not match the element count, are
// InvalidArgument; a type outside these lists is Unsupported naming the type.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vkattn/io/ggml_types.hpp"

namespace vkattn {

// Both hold for exactly the types with a storage format (ggmlStorageFormat).
bool ggmlCanDequantize(GgmlType type) noexcept;
bool ggmlCanQuantize(GgmlType type) noexcept;

// Bytes that `elements` elements of `type` take; InvalidArgument("elements") unless whole blocks.
uint64_t ggmlStorageBytes(GgmlType type, uint64_t elements);

// `elements` values from their stored bytes (exactly ggmlStorageBytes(type, elements) of them).
std::vector<float> dequantizeGgml(GgmlType type, std::span<const uint8_t> bytes, uint64_t elements);
// The stored bytes of `values` (whole blocks). The block formats refuse NaN and infinity.
std::vector<uint8_t> quantizeGgml(GgmlType type, std::span<const float> values);

}  // namespace vkattn
