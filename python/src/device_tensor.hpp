// vkattn.Tensor: an array kept on the session's device between calls, so weights, activations and
// KV caches are not uploaded again by every call. It names a tensor in the session's store
// (keepTensor) and carries its shape and dtype, so reading them needs no lock. The kept tensor is
// contiguous; `shape` may reshape it. Dropped when the Python object goes, or with the device when
// use_device() replaces it (later use then raises ValueError naming the argument).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "vkattn/core/tensor.hpp"

namespace vkattn::python {

namespace py = pybind11;

class DeviceTensor {
 public:
  DeviceTensor(uint64_t id, Shape shape, DType dtype) : m_id(id), m_shape(std::move(shape)), m_dtype(dtype) {}
  // Drops the kept tensor: takes the session mutex, with the GIL held (as layers do).
  ~DeviceTensor();
  DeviceTensor(DeviceTensor&& other) noexcept;
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;
  DeviceTensor& operator=(DeviceTensor&&) = delete;

  uint64_t id() const noexcept { return m_id; }
  const Shape& shape() const noexcept { return m_shape; }
  DType dtype() const noexcept { return m_dtype; }

  // The elements as a view of this shape. Only with sessionMutex() held; InvalidArgument naming
  // `name` when the device it was made on has been replaced.
  TensorView view(const std::string& name) const;
  // The kept tensor itself (for writes into it, such as KV cache appends); same conditions.
  const Tensor& tensor(const std::string& name) const;

 private:
  uint64_t m_id = 0;  // 0: moved from
  Shape m_shape;
  DType m_dtype = DType::F32;
};

bool isDeviceTensor(const py::handle& value);
// The vkattn.Tensor `value` (alive as long as `value` is).
const DeviceTensor& deviceTensor(const py::handle& value);
// vkattn.asarray: `value` (an array, or a vkattn.Tensor) on the device in `dtype` (None: float16
// stays, other floats become float32, integers int32; or a K/V format's name). With the GIL.
py::object asarray(const py::object& value, const py::object& dtype);
// A new vkattn.Tensor for the kept tensor `id`. With the GIL.
py::object wrapKept(uint64_t id, Shape shape, DType dtype);
// The NumPy dtype name a vkattn.Tensor of `dtype` reads back as (K/V formats decode to float32).
const char* numpyName(DType dtype) noexcept;
// What a vkattn.Tensor reports as its dtype: 'float32', 'float16', 'int32', 'bf16', 'q8_0', 'q4_0'.
const char* dtypeName(DType dtype) noexcept;

}  // namespace vkattn::python
