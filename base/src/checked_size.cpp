#include "vkattn/core/checked_size.hpp"

#include <limits>

#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn {

int64_t checkedElementCount(const Shape& shape, const std::string& argument) {
  // Multiply the non-zero dims first: a zero among them must not hide an overflowing product.
  int64_t count = 1;
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) throw InvalidArgument(argument, "has a negative dimension in shape " + toString(shape));
    if (d == 0) {
      empty = true;
    } else if (count > std::numeric_limits<int64_t>::max() / d) {
      throw InvalidArgument(argument, "shape " + toString(shape) + " holds more than 2^63 - 1 elements");
    } else {
      count *= d;
    }
  }
  return empty ? 0 : count;
}

std::size_t checkedByteCount(const Shape& shape, std::size_t elementBytes, const std::string& argument) {
  const auto count = static_cast<uint64_t>(checkedElementCount(shape, argument));
  if (elementBytes != 0 && count > std::numeric_limits<std::size_t>::max() / elementBytes)
    throw InvalidArgument(argument, "shape " + toString(shape) + " of " + std::to_string(elementBytes) +
                                        "-byte elements overflows the address space");
  return static_cast<std::size_t>(count) * elementBytes;
}

std::size_t checkedByteCount(const Shape& shape, DType dtype, const std::string& argument) {
  // Block formats: a partial block counts whole (callers require whole blocks per row).
  const int64_t count = checkedElementCount(shape, argument);
  const int64_t per = blockElements(dtype);
  return checkedByteCount({(count + per - 1) / per}, dtypeSize(dtype), argument);
}

}  // namespace vkattn
