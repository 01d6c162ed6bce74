#include "arrays.hpp"

#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "session.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn::python {
namespace {

// Any array-like as an ndarray (no copy for an ndarray); TypeError naming the argument otherwise.
py::array asArray(const py::handle& value, const std::string& name) {
  if (py::isinstance<py::array>(value)) return py::reinterpret_borrow<py::array>(value);
  if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value))
    throw py::type_error("'" + name + "' must be a numpy array or a vkattn.Tensor, got " +
                         std::string(py::str(value.get_type())));
  try {
    return py::module_::import("numpy").attr("asarray")(value);
  } catch (const py::error_already_set& e) {
    throw py::type_error("'" + name + "' could not be converted to a numpy array: " + std::string(e.what()));
  }
}

py::array contiguousAs(const py::array& array, DType dtype) {
  return py::module_::import("numpy").attr("ascontiguousarray")(array, py::arg("dtype") = numpyName(dtype));
}

ArrayInput residentInput(const py::handle& value, const std::string& name, std::optional<DType> as, Stored stored) {
  const DeviceTensor& t = deviceTensor(value);
  const DType dtype = t.dtype();
  if (dtype == DType::I32)
    throw py::type_error("'" + name + "' is an int32 vkattn.Tensor; expected float32 or float16");
  if (isKvStorageFormat(dtype) && stored != Stored::FloatOrKvFormat)
    throw py::value_error("'" + name + "' is a vkattn.Tensor stored as " + dtypeName(dtype) +
                          "; only attention's k and v (and KV caches) take that format");
  if (as && dtype != *as && !(isKvStorageFormat(dtype) && stored == Stored::FloatOrKvFormat))
    throw py::value_error("'" + name + "' is a " + dtypeName(dtype) + " vkattn.Tensor, but this call needs " +
                          dtypeName(*as) + " here; make it with vkattn.asarray(..., dtype='" + dtypeName(*as) + "')");
  ArrayInput input{py::array(), t.shape(), dtype, name, py::reinterpret_borrow<py::object>(value), &t};
  return input;
}

}  // namespace

ArrayInput hostArray(py::array contiguous, DType dtype, std::string name) {
  Shape shape;
  for (py::ssize_t i = 0; i < contiguous.ndim(); ++i) shape.push_back(contiguous.shape(i));
  return ArrayInput{std::move(contiguous), std::move(shape), dtype, std::move(name)};
}

std::string arrivingDtype(const py::handle& value) {
  if (isDeviceTensor(value)) return dtypeName(deviceTensor(value).dtype());
  return py::str(py::module_::import("numpy").attr("asarray")(value).attr("dtype"));
}

py::object hostValue(const py::handle& value) {
  if (!isDeviceTensor(value)) return py::reinterpret_borrow<py::object>(value);
  return value.attr("numpy")();
}

ArrayInput floatInput(const py::handle& value, const std::string& name, const SizeLimits& limits,
                      std::optional<DType> as, Stored stored) {
  if (isDeviceTensor(value)) return residentInput(value, name, as, stored);
  py::array array = asArray(value, name);
  const char kind = array.dtype().kind();
  const auto itemsize = array.dtype().itemsize();
  if (kind != 'f' || (itemsize != 2 && itemsize != 4 && itemsize != 8))
    throw py::type_error("'" + name + "' has dtype " + std::string(py::str(array.dtype())) +
                         ", expected float32 or float16 (float64 is computed as float32)");
  const DType dtype = as.value_or(itemsize == 2 ? DType::F16 : DType::F32);
  checkArraySize(array, dtypeSize(dtype), name, limits);
  return hostArray(contiguousAs(array, dtype), dtype, name);
}

ArrayInput intInput(const py::handle& value, const std::string& name, const SizeLimits& limits, int64_t min,
                    int64_t max) {
  py::array array = asArray(hostValue(value), name);
  const char kind = array.dtype().kind();
  if (kind != 'i' && kind != 'u')
    throw py::type_error("'" + name + "' must be an integer array, got dtype " + std::string(py::str(array.dtype())));
  checkArraySize(array, dtypeSize(DType::I32), name, limits);
  checkIntRange(array, name, min, max);
  return hostArray(contiguousAs(array, DType::I32), DType::I32, name);
}

Tensor newTensor(Context& ctx, const ArrayInput& host, DType storedAs) {
  Tensor t;
  if (storedAs == host.dtype) {
    t = ctx.tensor(host.shape, host.dtype);
    t.uploadBytes(host.data(), t.bytes());
  } else {
    const int64_t count = elementCount(host.shape);
    const auto* bytes = static_cast<const std::byte*>(host.data());
    try {
      t = ctx.tensor(host.shape, decodeValues(host.dtype, {bytes, storageBytes(host.dtype, count)}, count), storedAs);
    } catch (const InvalidArgument& e) {  // the encoder's complaint (NaN, a scale past f16) is about this input
      if (e.argument() != "values" || host.name.empty()) throw;
      throw InvalidArgument(host.name, e.problem());
    }
  }
  transferBytes().hostToDevice += t.bytes();
  return t;
}

DeviceInput upload(Context& ctx, const ArrayInput& input) {
  return upload(ctx, input, input.dtype);
}

DeviceInput upload(Context& ctx, const ArrayInput& input, DType storedAs) {
  if (!input.resident) return DeviceInput(newTensor(ctx, input, storedAs));
  if (storedAs != input.dtype)
    throw InvalidArgument(input.name, std::string("is a vkattn.Tensor stored as ") + dtypeName(input.dtype) +
                                          ", but this call stores it as " + dtypeName(storedAs) +
                                          " (kv_dtype, or the dtype of the other inputs)");
  return DeviceInput(input.resident->view(input.name));
}

Result download(const Tensor& tensor, std::optional<Shape> shape) {
  Result result{shape.value_or(tensor.shape()), tensor.dtype()};
  if (elementCount(result.shape) != tensor.numel())
    throw InvalidArgument("shape", toString(result.shape) + " for a result of shape " + toString(tensor.shape()));
  if (isKvStorageFormat(tensor.dtype())) {  // read back as their float32 values
    const std::vector<float> values = tensor.download();
    result.dtype = DType::F32;
    result.bytes.resize(values.size() * sizeof(float));
    std::memcpy(result.bytes.data(), values.data(), result.bytes.size());
  } else {
    result.bytes.resize(tensor.bytes());
    tensor.downloadBytes(result.bytes.data(), result.bytes.size());
  }
  transferBytes().deviceToHost += tensor.bytes();
  return result;
}

Result finish(Tensor tensor, bool keep, std::optional<Shape> shape) {
  if (!keep) return download(tensor, std::move(shape));
  Result result{shape.value_or(tensor.shape()), tensor.dtype()};
  if (elementCount(result.shape) != tensor.numel())
    throw InvalidArgument("shape", toString(result.shape) + " for a result of shape " + toString(tensor.shape()));
  result.kept = keepTensor(std::move(tensor));
  return result;
}

py::array toNumpy(Result result) {
  std::vector<py::ssize_t> shape(result.shape.begin(), result.shape.end());
  // The array takes the downloaded bytes over (a capsule frees them with it): no second copy.
  auto bytes = std::make_unique<std::vector<uint8_t>>(std::move(result.bytes));
  py::capsule owner(bytes.get(), [](void* p) { delete static_cast<std::vector<uint8_t>*>(p); });
  const uint8_t* data = bytes.release()->data();
  return py::array(py::dtype(numpyName(result.dtype)), shape, data, owner);
}

py::object toPython(Result result) {
  if (result.kept) return wrapKept(result.kept, result.shape, result.dtype);
  return toNumpy(std::move(result));
}

}  // namespace vkattn::python
