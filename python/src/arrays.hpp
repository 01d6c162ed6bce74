// NumPy arrays <-> vkattn tensors, in two halves around the device work: with the GIL, inputs
// become HostArrays (size-checked, contiguous, in the tensor's dtype) and HostResults become
// arrays; without it, HostArrays are uploaded and tensors downloaded into HostResults.
// float32 and float16 keep their dtype, float64 is computed as float32; any other dtype is a
// TypeError naming the argument.
#pragma once

#include <pybind11/numpy.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "input_checks.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn::python {

namespace py = pybind11;

// An input's elements, C-contiguous in `dtype`. `array` owns them, so data() may be read without
// the GIL for as long as this lives; copy or destroy it only with the GIL held.
struct HostArray {
  py::array array;
  Shape shape;
  DType dtype = DType::F32;
  const void* data() const { return array.data(); }
};

// A float input (array, list or tuple). `as` forces float32 or float16; by default float16 stays
// float16 and float32/float64 become float32. Sizes are checked before anything is copied.
HostArray floatInput(const py::handle& value, const std::string& name, const SizeLimits& limits,
                     std::optional<DType> as = std::nullopt);
// An integer input narrowed to int32 after checking every value lies in [min, max].
HostArray intInput(const py::handle& value, const std::string& name, const SizeLimits& limits, int64_t min,
                   int64_t max);
// An already contiguous array of a dtype HostArray supports (e.g. after a NumPy reordering).
HostArray hostArray(py::array contiguous, DType dtype);

// Without the GIL:
Tensor upload(Context& ctx, const HostArray& input);
// The same values stored as `storedAs` (converted, or encoded as bf16, Q8_0 or Q4_0).
Tensor upload(Context& ctx, const HostArray& input, DType storedAs);

struct HostResult {
  Shape shape;
  DType dtype = DType::F32;
  std::vector<uint8_t> bytes;
};
// Without the GIL. `shape` (same element count) replaces the tensor's when given.
HostResult download(const Tensor& tensor, std::optional<Shape> shape = std::nullopt);

// With the GIL.
py::array toNumpy(const HostResult& result);

}  // namespace vkattn::python
