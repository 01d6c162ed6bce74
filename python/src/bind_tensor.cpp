// vkattn.Tensor and vkattn.asarray: arrays kept on the device between calls. Every function takes
// a vkattn.Tensor wherever it takes an array, and returns vkattn.Tensors when its first array
// argument is one; .numpy() reads one back. vkattn.transfer_bytes() counts what crossed between
// host and device, so a caller (or a test) can see what stayed resident.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <limits>
#include <mutex>

#include "arrays.hpp"
#include "bindings.hpp"
#include "device_tensor.hpp"
#include "session.hpp"
#include "storage_format_args.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn::python {
namespace {

// asarray's dtype: None (float16 stays, other floats become float32, integers int32), a NumPy
// dtype or its name, or a K/V storage format 'bf16' ('bfloat16'), 'q8_0', 'q4_0'.
std::optional<DType> dtypeArgument(const py::object& value) {
  if (value.is_none()) return std::nullopt;
  if (const std::optional<DType> format = kvFormatNamed(value)) return format;
  std::string name;
  try {
    name = py::str(py::module_::import("numpy").attr("dtype")(value).attr("name"));
  } catch (const py::error_already_set&) {
    name.clear();
  }
  if (name == "float32" || name == "float64") return DType::F32;
  if (name == "float16") return DType::F16;
  if (name == "int32") return DType::I32;
  throw py::value_error("'dtype' must be float32, float16, int32, 'bf16', 'q8_0' or 'q4_0', got " +
                        std::string(py::repr(value)));
}

// The dtype an array keeps when asarray is given none.
DType naturalDtype(const py::array& a) {
  const char kind = a.dtype().kind();
  if (kind == 'f') return a.dtype().itemsize() == 2 ? DType::F16 : DType::F32;
  if (kind == 'i' || kind == 'u') return DType::I32;
  throw py::type_error("'array' has dtype " + std::string(py::str(a.dtype())) +
                       "; vkattn.Tensor holds floats or int32");
}

}  // namespace

py::object asarray(const py::object& value, const py::object& dtypeValue) {
  const std::optional<DType> wanted = dtypeArgument(dtypeValue);
  if (isDeviceTensor(value) && (!wanted || *wanted == deviceTensor(value).dtype())) return value;
  const py::object host = hostValue(value);
  const py::array probe = py::module_::import("numpy").attr("asarray")(host);
  if (probe.ndim() == 0) throw py::value_error("'array' must have at least one dimension");
  const DType dtype = wanted.value_or(naturalDtype(probe));
  const SizeLimits limits = sizeLimits();
  ArrayInput input;
  if (dtype == DType::I32) {
    input = intInput(probe, "array", limits, kInt32Min, kInt32Max);
  } else {
    const char kind = probe.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u')
      throw py::type_error("'array' has dtype " + std::string(py::str(probe.dtype())) + "; expected numbers");
    const DType host = dtype == DType::F16 ? DType::F16 : DType::F32;  // K/V formats are encoded from float32
    input = floatInput(kind == 'f' ? probe : py::array(probe.attr("astype")(numpyName(host))), "array", limits, host);
    if (isBlockFormat(dtype) && input.shape.back() % blockElements(dtype) != 0)
      throw py::value_error("'array' last dimension " + std::to_string(input.shape.back()) + " is not a multiple of " +
                            std::to_string(blockElements(dtype)) + " (" + toString(dtype) + " blocks)");
  }
  const Shape shape = input.shape;
  const uint64_t id = onDevice([&](Context& ctx) { return keepTensor(newTensor(ctx, input, dtype)); });
  return wrapKept(id, shape, dtype);
}

namespace {

py::array numpyOf(const DeviceTensor& t) {
  return toNumpy(onDevice([&](Context&) { return download(t.tensor("self"), t.shape()); }));
}

py::tuple shapeTuple(const Shape& s) {
  py::tuple t(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) t[i] = s[i];
  return t;
}

}  // namespace

void bindTensor(py::module_& m) {
  py::class_<DeviceTensor>(m, "Tensor",
                           "An array kept on the device (made with vkattn.asarray). Every vkattn function takes it "
                           "where it takes an array, without copying it, and returns vkattn.Tensors when its first "
                           "array argument is one. flash_attn_with_kvcache appends to vkattn.Tensor caches on the "
                           "device. .numpy() reads it back (K/V storage formats as their float32 values).")
      .def("numpy", &numpyOf, "The elements as a new NumPy array (float32, float16 or int32).")
      .def(
          "__array__",
          [](const DeviceTensor& t, const py::object& dtype, const py::object& /*copy*/) -> py::object {
            py::array a = numpyOf(t);
            if (dtype.is_none()) return a;
            return a.attr("astype")(dtype);
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def_property_readonly("shape", [](const DeviceTensor& t) { return shapeTuple(t.shape()); })
      .def_property_readonly(
          "dtype", [](const DeviceTensor& t) { return dtypeName(t.dtype()); },
          "'float32', 'float16', 'int32', or a K/V storage format: 'bf16', 'q8_0', 'q4_0'.")
      .def_property_readonly("ndim", [](const DeviceTensor& t) { return t.shape().size(); })
      .def_property_readonly("size", [](const DeviceTensor& t) { return elementCount(t.shape()); })
      .def_property_readonly(
          "nbytes", [](const DeviceTensor& t) { return storageBytes(t.dtype(), elementCount(t.shape())); },
          "Bytes it occupies on the device.")
      .def("__len__", [](const DeviceTensor& t) { return t.shape().front(); })
      .def("__repr__", [](const DeviceTensor& t) {
        return "vkattn.Tensor(shape=" + std::string(py::str(shapeTuple(t.shape()))) +
               ", dtype=" + dtypeName(t.dtype()) + ")";
      });
  m.def("asarray", &asarray, py::arg("array"), py::arg("dtype") = py::none(),
        "array (NumPy array, list or vkattn.Tensor) on the device as a vkattn.Tensor. dtype: None keeps float16, "
        "makes other floats float32 and integers int32; or float32, float16, int32, or the K/V storage formats "
        "'bf16', 'q8_0', 'q4_0' (ggml's 32-element blocks along the last dimension). A vkattn.Tensor that already "
        "has the dtype is returned as it is.");
  m.def(
      "transfer_bytes",
      [] {
        TransferBytes t;
        {
          py::gil_scoped_release released;
          std::lock_guard<std::mutex> lock(sessionMutex());
          t = transferBytes();
        }
        py::dict d;
        d["host_to_device"] = t.hostToDevice;
        d["device_to_host"] = t.deviceToHost;
        return d;
      },
      "Bytes vkattn's functions have copied from host arrays to the device and back since the module loaded.");
}

}  // namespace vkattn::python
