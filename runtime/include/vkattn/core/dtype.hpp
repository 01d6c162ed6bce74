// Element types and shapes: what every header that describes data needs (tensors, storage
// formats, checked sizes, file readers), with nothing below it but the standard library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vkattn {

// BF16, Q8_0 and Q4_0 are K/V storage formats (vkattn/core/storage_formats.hpp); Q8_0, Q4_0 and
// the K-quants Q4_K, Q5_K and Q6_K are also weights formats (linear's weight). The block formats
// store blocks of 32 (Q8_0, Q4_0) or 256 (K-quants) elements along the last dimension, which must
// be a multiple of the block.
enum class DType { F32, F16, I32, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K };

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
