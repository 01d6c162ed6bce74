#include "arrays.hpp"

#include "vkattn/core/context.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::python {

py::array floatArray(const py::handle& value, const std::string& name) {
  if (!py::isinstance<py::array>(value) && !py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value))
    throw py::type_error("'" + name + "' must be a numpy array, got " + std::string(py::str(value.get_type())));
  py::array array = py::array::ensure(value);
  if (!array) throw py::type_error("'" + name + "' could not be converted to a numpy array");
  const char kind = array.dtype().kind();
  const auto itemsize = array.dtype().itemsize();
  if (kind == 'f' && itemsize == 2) return py::array::ensure(array, py::array::c_style);
  if (kind == 'f' && (itemsize == 4 || itemsize == 8)) return py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(array);
  throw py::type_error("'" + name + "' has dtype " + std::string(py::str(array.dtype())) +
                       ", expected float32 or float16 (float64 is computed as float32)");
}

Shape shapeOf(const py::array& array) {
  Shape shape;
  for (py::ssize_t i = 0; i < array.ndim(); ++i) shape.push_back(array.shape(i));
  return shape;
}

DType dtypeOf(const py::array& array) { return array.dtype().itemsize() == 2 ? DType::F16 : DType::F32; }

Tensor toTensor(Context& ctx, const py::array& array) {
  py::array contiguous = py::array::ensure(array, py::array::c_style);
  Tensor t = ctx.tensor(shapeOf(contiguous), dtypeOf(contiguous));
  t.uploadBytes(contiguous.data(), t.bytes());
  return t;
}

Tensor toIntTensor(Context& ctx, const py::handle& value, const std::string& name) {
  py::array array = py::array::ensure(value);
  if (!array || (array.dtype().kind() != 'i' && array.dtype().kind() != 'u'))
    throw py::type_error("'" + name + "' must be an integer array");
  auto ints = py::array_t<int32_t, py::array::c_style | py::array::forcecast>::ensure(array);
  Tensor t(ctx.device(), shapeOf(ints), DType::I32);
  t.uploadBytes(ints.data(), t.bytes());
  return t;
}

py::array toArray(const Tensor& tensor) {
  std::vector<py::ssize_t> shape(tensor.shape().begin(), tensor.shape().end());
  if (tensor.dtype() == DType::F16) {
    py::array_t<uint16_t> bits(shape);
    tensor.downloadBytes(bits.mutable_data(), tensor.bytes());
    return bits.attr("view")("float16");
  }
  py::array_t<float> out(shape);
  tensor.downloadBytes(out.mutable_data(), tensor.bytes());
  return out;
}

}  // namespace vkattn::python
