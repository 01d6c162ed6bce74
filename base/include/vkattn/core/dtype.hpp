// Element types and shapes: what every header that describes data needs (tensors, storage
// formats, checked sizes, file readers), with nothing below it but the standard library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vkattn/core/block_layouts.h"

namespace vkattn {

// BF16, Q8_0 and Q4_0 are K/V storage formats (vkattn/core/storage_formats.hpp); Q8_0, Q4_0 and
// the K-quants Q4_K, Q5_K and Q6_K are also weights formats (linear's weight). The block formats
// store blocks of 32 (Q8_0, Q4_0) or 256 (K-quants) elements along the last dimension, which must
// be a multiple of the block.
enum class DType { F32, F16, I32, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K };

// The one table of dtypes, in the enum's order: each one's name and its layout along the last
// dimension (a plain type is a block of one element; the block formats' sizes from
// block_layouts.h, which the kernels include too). io's table of ggml types takes the layouts of
// the types it shares with vkattn from here.
struct DTypeLayout {
  DType dtype;
  const char* name;
  uint32_t blockElements;
  uint32_t blockBytes;
};
inline constexpr DTypeLayout kDTypeLayouts[] = {
    {DType::F32, "f32", 1, 4},
    {DType::F16, "f16", 1, 2},
    {DType::I32, "i32", 1, 4},
    {DType::BF16, "bf16", 1, 2},
    {DType::Q8_0, "q8_0", Q8_0_BLOCK_ELEMENTS, Q8_0_BLOCK_BYTES},
    {DType::Q4_0, "q4_0", Q4_0_BLOCK_ELEMENTS, Q4_0_BLOCK_BYTES},
    {DType::Q4_K, "q4_k", Q4_K_BLOCK_ELEMENTS, Q4_K_BLOCK_BYTES},
    {DType::Q5_K, "q5_k", Q5_K_BLOCK_ELEMENTS, Q5_K_BLOCK_BYTES},
    {DType::Q6_K, "q6_k", Q6_K_BLOCK_ELEMENTS, Q6_K_BLOCK_BYTES},
};
constexpr const DTypeLayout& dtypeLayout(DType dtype) noexcept {
  return kDTypeLayouts[static_cast<int>(dtype)];
}

// Bytes per element; for the block formats a block's bytes (see storageBytes).
std::size_t dtypeSize(DType dtype) noexcept;
const char* toString(DType dtype) noexcept;
// The K/V storage format toString names: "bf16", "q8_0" or "q4_0"; nullopt for anything else.
std::optional<DType> kvFormatFromString(std::string_view name) noexcept;

using Shape = std::vector<int64_t>;

std::string toString(const Shape& shape);
int64_t elementCount(const Shape& shape) noexcept;
Shape contiguousStrides(const Shape& shape);

}  // namespace vkattn
