// Tensor: a device buffer with a shape and an element type. TensorView: a non-owning, possibly
// strided window onto a tensor's buffer that the ops take (e.g. [B, L, H, D] seen as [B, H, L, D]).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vkattn/core/buffer.hpp"
#include "vkattn/core/dtype.hpp"

namespace vkattn {

class Device;

struct TensorView {
  const Buffer* buffer = nullptr;
  DType dtype = DType::F32;
  Shape shape;
  Shape strides;       // in elements
  int64_t offset = 0;  // in elements

  int64_t rank() const noexcept { return static_cast<int64_t>(shape.size()); }
  int64_t dim(int64_t i) const { return shape.at(static_cast<std::size_t>(i < 0 ? i + rank() : i)); }
  int64_t numel() const noexcept { return elementCount(shape); }
  bool contiguous() const;
  // Elements from the view's first to one past its last element.
  int64_t spanElements() const;
  // Bytes from the view's first to one past its last element.
  std::size_t spanBytes() const;
  // The same elements with dimensions reordered: permuted(order)[i] = this[order[i]].
  TensorView permuted(const std::vector<int>& order) const;
  // Elements start .. start + length - 1 of dimension dim (same rank, same strides).
  TensorView sliced(int64_t dim, int64_t start, int64_t length) const;
  // The same contiguous elements under another shape of equal element count.
  TensorView reshaped(Shape newShape) const;
};

class Tensor {
 public:
  Tensor() = default;
  Tensor(const Device& device, Shape shape, DType dtype = DType::F32);
  // Creates a tensor and uploads `values` (converted to `dtype`, quantized for Q8_0 and Q4_0).
  static Tensor fromHost(const Device& device, Shape shape, std::span<const float> values, DType dtype = DType::F32);
  static Tensor fromHostInt(const Device& device, Shape shape, std::span<const int32_t> values);

  const Shape& shape() const noexcept { return m_shape; }
  DType dtype() const noexcept { return m_dtype; }
  int64_t numel() const noexcept { return elementCount(m_shape); }
  std::size_t bytes() const noexcept;
  const Buffer& buffer() const noexcept { return m_buffer; }
  TensorView view() const;
  operator TensorView() const { return view(); }  // NOLINT: a tensor is usable wherever a view is

  void upload(std::span<const float> values);
  void uploadInt(std::span<const int32_t> values);
  // The values as floats (decoded from bf16, Q8_0 and Q4_0).
  std::vector<float> download() const;
  std::vector<int32_t> downloadInt() const;
  // Raw element bytes in the tensor's own dtype (e.g. IEEE halves for f16); sizes must match.
  void uploadBytes(const void* data, std::size_t bytes);
  void downloadBytes(void* data, std::size_t bytes) const;

 private:
  Buffer m_buffer;
  Shape m_shape;
  DType m_dtype = DType::F32;
};

}  // namespace vkattn
