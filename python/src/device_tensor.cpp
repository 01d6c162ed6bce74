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

namespace {

// The numpy dtype that holds a DType as it is, or none for the storage formats (bf16 and the block
// formats), which arrive and leave as float32.
const char* numpyEquivalent(DType dtype) noexcept {
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
      break;
  }
  return nullptr;
}

}  // namespace

const char* numpyName(DType dtype) noexcept {
  const char* name = numpyEquivalent(dtype);
  return name ? name : "float32";
}

const char* dtypeName(DType dtype) noexcept {
  const char* name = numpyEquivalent(dtype);
  return name ? name : toString(dtype);
}

}  // namespace vkattn::python
