#include "vkattn/core/dtype.hpp"

#include <iterator>

namespace vkattn {

namespace {
constexpr bool tableInEnumOrder() {
  for (int i = 0; i < static_cast<int>(std::size(kDTypeLayouts)); ++i)
    if (static_cast<int>(kDTypeLayouts[i].dtype) != i) return false;
  return true;
}
static_assert(tableInEnumOrder() && std::size(kDTypeLayouts) == static_cast<std::size_t>(DType::Q6_K) + 1,
              "kDTypeLayouts holds every DType once, in the enum's order");
}  // namespace

std::size_t dtypeSize(DType dtype) noexcept {
  return dtypeLayout(dtype).blockBytes;
}

const char* toString(DType dtype) noexcept {
  return dtypeLayout(dtype).name;
}

std::optional<DType> kvFormatFromString(std::string_view name) noexcept {
  for (DType format : {DType::BF16, DType::Q8_0, DType::Q4_0})
    if (name == toString(format)) return format;
  return std::nullopt;
}

std::string toString(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t elementCount(const Shape& shape) noexcept {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Shape contiguousStrides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t stride = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

}  // namespace vkattn
