#include "arrays.hpp"

#include <cstring>

#include "vkattn/core/context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn::python {
namespace {

const char* numpyName(DType dtype) {
  switch (dtype) {
    case DType::F16: return "float16";
    case DType::I32: return "int32";
    case DType::F32:
    case DType::BF16:  // K/V storage formats: never a NumPy result
    case DType::Q8_0:
    case DType::Q4_0: break;
  }
  return "float32";
}

// Any array-like as an ndarray (no copy for an ndarray); TypeError naming the argument otherwise.
py::array asArray(const py::handle& value, const std::string& name) {
  if (py::isinstance<py::array>(value)) return py::reinterpret_borrow<py::array>(value);
  if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value))
    throw py::type_error("'" + name + "' must be a numpy array, got " + std::string(py::str(value.get_type())));
  try {
    return py::module_::import("numpy").attr("asarray")(value);
  } catch (const py::error_already_set& e) {
    throw py::type_error("'" + name + "' could not be converted to a numpy array: " + std::string(e.what()));
  }
}

py::array contiguousAs(const py::array& array, DType dtype) {
  return py::module_::import("numpy").attr("ascontiguousarray")(array, py::arg("dtype") = numpyName(dtype));
}

}  // namespace

HostArray hostArray(py::array contiguous, DType dtype) {
  Shape shape;
  for (py::ssize_t i = 0; i < contiguous.ndim(); ++i) shape.push_back(contiguous.shape(i));
  return HostArray{std::move(contiguous), std::move(shape), dtype};
}

HostArray floatInput(const py::handle& value, const std::string& name, const SizeLimits& limits,
                     std::optional<DType> as) {
  py::array array = asArray(value, name);
  const char kind = array.dtype().kind();
  const auto itemsize = array.dtype().itemsize();
  if (kind != 'f' || (itemsize != 2 && itemsize != 4 && itemsize != 8))
    throw py::type_error("'" + name + "' has dtype " + std::string(py::str(array.dtype())) +
                         ", expected float32 or float16 (float64 is computed as float32)");
  const DType dtype = as.value_or(itemsize == 2 ? DType::F16 : DType::F32);
  checkArraySize(array, dtypeSize(dtype), name, limits);
  return hostArray(contiguousAs(array, dtype), dtype);
}

HostArray intInput(const py::handle& value, const std::string& name, const SizeLimits& limits, int64_t min,
                   int64_t max) {
  py::array array = asArray(value, name);
  const char kind = array.dtype().kind();
  if (kind != 'i' && kind != 'u')
    throw py::type_error("'" + name + "' must be an integer array, got dtype " + std::string(py::str(array.dtype())));
  checkArraySize(array, dtypeSize(DType::I32), name, limits);
  checkIntRange(array, name, min, max);
  return hostArray(contiguousAs(array, DType::I32), DType::I32);
}

Tensor upload(Context& ctx, const HostArray& input) {
  Tensor t = ctx.tensor(input.shape, input.dtype);
  t.uploadBytes(input.data(), t.bytes());
  return t;
}

Tensor upload(Context& ctx, const HostArray& input, DType storedAs) {
  if (storedAs == input.dtype) return upload(ctx, input);
  const int64_t count = elementCount(input.shape);
  const auto* bytes = static_cast<const std::byte*>(input.data());
  return ctx.tensor(input.shape, decodeValues(input.dtype, {bytes, storageBytes(input.dtype, count)}, count), storedAs);
}

HostResult download(const Tensor& tensor, std::optional<Shape> shape) {
  HostResult result{shape.value_or(tensor.shape()), tensor.dtype(), std::vector<uint8_t>(tensor.bytes())};
  if (elementCount(result.shape) != tensor.numel())
    throw InvalidArgument("shape", toString(result.shape) + " for a result of shape " + toString(tensor.shape()));
  tensor.downloadBytes(result.bytes.data(), result.bytes.size());
  return result;
}

py::array toNumpy(const HostResult& result) {
  std::vector<py::ssize_t> shape(result.shape.begin(), result.shape.end());
  py::array out(py::dtype(numpyName(result.dtype)), shape);
  std::memcpy(out.mutable_data(), result.bytes.data(), result.bytes.size());
  return out;
}

}  // namespace vkattn::python
