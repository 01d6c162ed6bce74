// Element and byte counts of a shape computed with overflow checks, for every place that sizes
// memory from caller-given dimensions (tensors, scratch, file headers, Python arrays).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "vkattn/core/dtype.hpp"

namespace vkattn {

// The product of the dimensions; throws InvalidArgument(argument, ...) when a dimension is
// negative or the product does not fit int64. A zero dimension gives 0 only after every
// dimension has been checked, so no caller can later overflow multiplying the same shape.
int64_t checkedElementCount(const Shape& shape, const std::string& argument);

// checkedElementCount times the element size; throws InvalidArgument when it does not fit size_t.
std::size_t checkedByteCount(const Shape& shape, std::size_t elementBytes, const std::string& argument);
std::size_t checkedByteCount(const Shape& shape, DType dtype, const std::string& argument);

}  // namespace vkattn
