#include "vkattn/core/dtype.hpp"

namespace vkattn {

std::size_t dtypeSize(DType dtype) noexcept {
  switch (dtype) {
    case DType::F16:
    case DType::BF16: return 2;
    case DType::Q8_0: return 34;
    case DType::Q4_0: return 18;
    case DType::Q4_K: return 144;
    case DType::Q5_K: return 176;
    case DType::Q6_K: return 210;
    case DType::F32:
    case DType::I32: return 4;
  }
  return 4;
}

const char* toString(DType dtype) noexcept {
  switch (dtype) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::I32: return "i32";
    case DType::BF16: return "bf16";
    case DType::Q8_0: return "q8_0";
    case DType::Q4_0: return "q4_0";
    case DType::Q4_K: return "q4_k";
    case DType::Q5_K: return "q5_k";
    case DType::Q6_K: return "q6_k";
  }
  return "?";
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
