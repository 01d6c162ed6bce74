// NumPy arrays <-> vkattn tensors. float32 and float16 keep their dtype, float64 is computed as
// float32; anything else is a TypeError naming the argument.
#pragma once

#include <pybind11/numpy.h>

#include <string>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn::python {

namespace py = pybind11;

// A contiguous float array (float32 or float16) ready to upload; float64 becomes float32.
py::array floatArray(const py::handle& value, const std::string& name);
Shape shapeOf(const py::array& array);
DType dtypeOf(const py::array& array);

Tensor toTensor(Context& ctx, const py::array& array);
Tensor toIntTensor(Context& ctx, const py::handle& value, const std::string& name);
py::array toArray(const Tensor& tensor);

}  // namespace vkattn::python
