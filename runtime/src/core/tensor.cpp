#include "vkattn/core/tensor.hpp"

#include <cstring>

#include "vkattn/core/checked_size.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn {

bool TensorView::contiguous() const {
  return strides == contiguousStrides(shape);
}

int64_t TensorView::spanElements() const {
  if (numel() == 0) return 0;
  int64_t last = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) last += (shape[i] - 1) * strides[i];
  return last + 1;
}

std::size_t TensorView::spanBytes() const {
  return storageBytes(dtype, spanElements());
}

TensorView TensorView::permuted(const std::vector<int>& order) const {
  if (order.size() != shape.size())
    throw InvalidArgument("order", "permutation of rank " + std::to_string(order.size()) + " for a view of rank " +
                                       std::to_string(shape.size()));
  TensorView v = *this;
  std::vector<bool> seen(order.size(), false);
  for (std::size_t i = 0; i < order.size(); ++i) {
    int o = order[i];
    if (o < 0 || o >= static_cast<int>(order.size()) || seen[o])
      throw InvalidArgument("order", "is not a permutation of 0.." + std::to_string(order.size() - 1));
    seen[o] = true;
    v.shape[i] = shape[o];
    v.strides[i] = strides[o];
  }
  return v;
}

TensorView TensorView::sliced(int64_t dim, int64_t start, int64_t length) const {
  if (dim < 0) dim += rank();
  if (dim < 0 || dim >= rank())
    throw InvalidArgument("dim", "is " + std::to_string(dim) + " for a view of rank " + std::to_string(rank()));
  const auto d = static_cast<std::size_t>(dim);
  if (start < 0 || length < 0 || start + length > shape[d])
    throw InvalidArgument("start", "slice [" + std::to_string(start) + ", " + std::to_string(start + length) +
                                       ") is outside dimension " + std::to_string(dim) + " of size " +
                                       std::to_string(shape[d]));
  TensorView v = *this;
  v.offset += start * strides[d];
  v.shape[d] = length;
  return v;
}

TensorView TensorView::reshaped(Shape newShape) const {
  if (!contiguous()) throw InvalidArgument("view", "reshape needs a contiguous view");
  if (elementCount(newShape) != numel())
    throw InvalidArgument("shape", toString(newShape) + " holds a different element count than " + toString(shape));
  TensorView v = *this;
  v.strides = contiguousStrides(newShape);
  v.shape = std::move(newShape);
  return v;
}

Tensor::Tensor(const Device& device, Shape shape, DType dtype) : m_shape(std::move(shape)), m_dtype(dtype) {
  for (int64_t d : m_shape)
    if (d <= 0) throw InvalidArgument("shape", "dimensions must be positive, got " + toString(m_shape));
  if (isBlockFormat(m_dtype) && (m_shape.empty() || m_shape.back() % blockElements(m_dtype) != 0))
    throw InvalidArgument("shape", toString(m_shape) + ": the last dimension of a " + toString(m_dtype) +
                                       " tensor must be a multiple of " + std::to_string(blockElements(m_dtype)));
  // Whole 32-bit words: kernels read block formats (2-byte aligned blocks) as words.
  const std::size_t bytes = checkedByteCount(m_shape, m_dtype, "shape");
  m_buffer = Buffer(device, bytes + (isBlockFormat(m_dtype) ? (4 - bytes % 4) % 4 : 0));
}

std::size_t Tensor::bytes() const noexcept {
  return storageBytes(m_dtype, numel());
}

Tensor Tensor::fromHost(const Device& device, Shape shape, std::span<const float> values, DType dtype) {
  if (dtype == DType::I32) throw InvalidArgument("dtype", "use fromHostInt for i32 tensors");
  Tensor t(device, std::move(shape), dtype);
  t.upload(values);
  return t;
}

Tensor Tensor::fromHostInt(const Device& device, Shape shape, std::span<const int32_t> values) {
  Tensor t(device, std::move(shape), DType::I32);
  t.uploadInt(values);
  return t;
}

TensorView Tensor::view() const {
  return TensorView{&m_buffer, m_dtype, m_shape, contiguousStrides(m_shape), 0};
}

void Tensor::upload(std::span<const float> values) {
  if (static_cast<int64_t>(values.size()) != numel())
    throw InvalidArgument("values",
                          std::to_string(values.size()) + " values for a tensor of shape " + toString(m_shape));
  if (m_dtype == DType::I32) throw InvalidArgument("values", "float values for an i32 tensor; use uploadInt");
  if (m_dtype == DType::F32) {
    m_buffer.write(values.data(), bytes());
  } else {
    const std::vector<std::byte> encoded = encodeValues(m_dtype, values);
    m_buffer.write(encoded.data(), encoded.size());
  }
}

void Tensor::uploadInt(std::span<const int32_t> values) {
  if (m_dtype != DType::I32) throw InvalidArgument("values", "int values for a float tensor");
  if (static_cast<int64_t>(values.size()) != numel())
    throw InvalidArgument("values",
                          std::to_string(values.size()) + " values for a tensor of shape " + toString(m_shape));
  m_buffer.write(values.data(), bytes());
}

std::vector<float> Tensor::download() const {
  if (m_dtype == DType::I32) throw InvalidArgument("dtype", "i32 tensor; use downloadInt");
  if (m_dtype == DType::F32) {
    std::vector<float> out(static_cast<std::size_t>(numel()));
    m_buffer.read(out.data(), bytes());
    return out;
  }
  std::vector<std::byte> encoded(bytes());
  m_buffer.read(encoded.data(), encoded.size());
  return decodeValues(m_dtype, encoded, numel());
}

std::vector<int32_t> Tensor::downloadInt() const {
  if (m_dtype != DType::I32) throw InvalidArgument("dtype", "float tensor; use download");
  std::vector<int32_t> out(static_cast<std::size_t>(numel()));
  m_buffer.read(out.data(), bytes());
  return out;
}

void Tensor::uploadBytes(const void* data, std::size_t size) {
  if (size != bytes())
    throw InvalidArgument("bytes", std::to_string(size) + " bytes for a tensor of " + std::to_string(bytes()));
  m_buffer.write(data, size);
}

void Tensor::downloadBytes(void* data, std::size_t size) const {
  if (size != bytes())
    throw InvalidArgument("bytes", std::to_string(size) + " bytes for a tensor of " + std::to_string(bytes()));
  m_buffer.read(data, size);
}

}  // namespace vkattn
