// K/V storage formats from Python: quantize / dequantize (host conversion to and from bf16,
// Q8_0 and Q4_0 as NumPy uint16 / uint8 arrays) and the kv_dtype argument the flash-attn
// functions take to keep their K/V in one of these formats on the device.
#include <pybind11/numpy.h>

#include <cstring>
#include <string>

#include "arrays.hpp"
#include "bindings.hpp"
#include "session.hpp"
#include "storage_format_args.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn::python {
namespace {

DType formatArgument(const py::object& value, const std::string& name) {
  if (const std::optional<DType> format = kvFormatNamed(value)) return *format;
  throw py::value_error("'" + name + "' must be 'bf16', 'q8_0' or 'q4_0', got " + std::string(py::repr(value)));
}

// Shape of the encoded array: bf16 keeps the shape; a block format has blockBytes per 32 elements.
Shape encodedShape(DType dtype, Shape shape) {
  if (isBlockFormat(dtype))
    shape.back() = shape.back() / blockElements(dtype) * static_cast<int64_t>(blockBytes(dtype));
  return shape;
}

py::array quantize(const py::object& x, const py::object& dtypeName) {
  const DType dtype = formatArgument(dtypeName, "dtype");
  const ArrayInput a = floatInput(hostValue(x), "x", sizeLimits(), DType::F32);
  if (a.shape.empty()) throw py::value_error("'x' must have at least one dimension");
  if (isBlockFormat(dtype) && a.shape.back() % blockElements(dtype) != 0)
    throw py::value_error("'x' last dimension " + std::to_string(a.shape.back()) + " is not a multiple of " +
                          std::to_string(blockElements(dtype)) + " (" + toString(dtype) + " blocks)");
  const auto* values = static_cast<const float*>(a.data());
  const std::vector<std::byte> bytes =
      encodeValues(dtype, std::span(values, static_cast<std::size_t>(elementCount(a.shape))));
  const Shape shape = encodedShape(dtype, a.shape);
  py::array out(dtype == DType::BF16 ? py::dtype("uint16") : py::dtype("uint8"),
                std::vector<py::ssize_t>(shape.begin(), shape.end()));
  std::memcpy(out.mutable_data(), bytes.data(), bytes.size());
  return out;
}

py::array dequantize(const py::object& data, const py::object& dtypeName) {
  const DType dtype = formatArgument(dtypeName, "dtype");
  if (isDeviceTensor(data)) {  // a vkattn.Tensor stored in that format: its values, read back
    if (deviceTensor(data).dtype() != dtype)
      throw py::value_error("'data' is a vkattn.Tensor stored as " +
                            std::string(python::dtypeName(deviceTensor(data).dtype())) + ", not " + toString(dtype));
    return data.attr("numpy")();
  }
  const char* expected = dtype == DType::BF16 ? "uint16" : "uint8";
  if (!py::isinstance<py::array>(data) || !py::reinterpret_borrow<py::array>(data).dtype().is(py::dtype(expected)))
    throw py::type_error(std::string("'data' must be a numpy ") + expected + " array (from vkattn.quantize) for " +
                         toString(dtype));
  const py::array a = py::module_::import("numpy").attr("ascontiguousarray")(data);
  if (a.ndim() == 0) throw py::value_error("'data' must have at least one dimension");
  Shape shape(a.shape(), a.shape() + a.ndim());
  if (isBlockFormat(dtype)) {
    const auto per = static_cast<int64_t>(blockBytes(dtype));
    if (shape.back() % per != 0)
      throw py::value_error("'data' last dimension " + std::to_string(shape.back()) + " is not a whole number of " +
                            std::to_string(per) + "-byte " + toString(dtype) + " blocks");
    shape.back() = shape.back() / per * blockElements(dtype);
  }
  const int64_t count = elementCount(shape);
  const std::vector<float> values =
      decodeValues(dtype, std::span(static_cast<const std::byte*>(a.data()), storageBytes(dtype, count)), count);
  py::array out(py::dtype("float32"), std::vector<py::ssize_t>(shape.begin(), shape.end()));
  std::memcpy(out.mutable_data(), values.data(), values.size() * sizeof(float));
  return out;
}

}  // namespace

std::optional<DType> kvFormatNamed(const py::object& value) {
  if (!py::isinstance<py::str>(value)) return std::nullopt;
  const std::string s = py::cast<std::string>(value);
  if (s == "bfloat16") return DType::BF16;  // NumPy-style spelling, beside toString's names
  return kvFormatFromString(s);
}

std::optional<DType> kvDtypeArgument(const py::object& value, int64_t dk, int64_t dv) {
  if (value.is_none()) return std::nullopt;
  const DType dtype = formatArgument(value, "kv_dtype");
  if (isBlockFormat(dtype) && (dk % blockElements(dtype) != 0 || dv % blockElements(dtype) != 0))
    throw py::value_error("'kv_dtype' " + std::string(toString(dtype)) + " stores blocks of 32 along the head dim; " +
                          "head dims " + std::to_string(dk) + "/" + std::to_string(dv) + " are not multiples of 32");
  return dtype;
}

void bindStorageFormats(py::module_& m) {
  m.def("quantize", &quantize, py::arg("x"), py::arg("dtype"),
        "x (float, any shape) encoded as 'bf16' (uint16, same shape) or ggml's 'q8_0' / 'q4_0' blocks of 32 "
        "along the last dimension (uint8, last dim / 32 * 34 or * 18 bytes): an f16 scale, then the values.");
  m.def("dequantize", &dequantize, py::arg("data"), py::arg("dtype"),
        "The float32 values of an array vkattn.quantize made with the same dtype (or of a vkattn.Tensor stored "
        "in that format).");
}

}  // namespace vkattn::python
