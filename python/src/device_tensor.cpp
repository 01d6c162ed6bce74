#include "device_tensor.hpp"

#include <mutex>

#include "session.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::python {

DeviceTensor::~DeviceTensor() {
  if (m_id == 0) return;
  std::lock_guard<std::mutex> lock(sessionMutex());
  dropTensor(m_id);
}

DeviceTensor::DeviceTensor(DeviceTensor&& other) noexcept
    : m_id(other.m_id), m_shape(std::move(other.m_shape)), m_dtype(other.m_dtype) {
  other.m_id = 0;
}

const Tensor& DeviceTensor::tensor(const std::string& name) const {
  const Tensor* t = keptTensor(m_id);
  if (!t)
    throw InvalidArgument(name,
                          "is a vkattn.Tensor made on a device that use_device() has since replaced; make it "
                          "again with vkattn.asarray");
  return *t;
}

TensorView DeviceTensor::view(const std::string& name) const {
  return tensor(name).view().reshaped(m_shape);
}

bool isDeviceTensor(const py::handle& value) {
  return py::isinstance<DeviceTensor>(value);
}

const DeviceTensor& deviceTensor(const py::handle& value) {
  return value.cast<const DeviceTensor&>();
}

py::object wrapKept(uint64_t id, Shape shape, DType dtype) {
  return py::cast(DeviceTensor(id, std::move(shape), dtype));
}

const char* numpyName(DType dtype) noexcept {
  switch (dtype) {
    case DType::F16:
      return "float16";
    case DType::I32:
      return "int32";
    case DType::F32:
    case DType::BF16:
    case DType::Q8_0:
    case DType::Q4_0:
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K:
      break;
  }
  return "float32";
}

const char* dtypeName(DType dtype) noexcept {
  switch (dtype) {
    case DType::F32:
      return "float32";
    case DType::F16:
      return "float16";
    case DType::I32:
      return "int32";
    case DType::BF16:
    case DType::Q8_0:
    case DType::Q4_0:
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K:
      return toString(dtype);
  }
  return "float32";
}

}  // namespace vkattn::python
