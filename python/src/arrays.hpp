// Python inputs <-> vkattn tensors, in two halves around the device work: with the GIL, inputs
// become ArrayInputs (size-checked, contiguous, in the tensor's dtype) and Results become NumPy
// arrays or vkattn.Tensors; without it, ArrayInputs are uploaded (or, for a vkattn.Tensor, viewed
// where they already are) and results downloaded or kept on the device.
// float32 and float16 keep their dtype, float64 is computed as float32; any other dtype is a
// TypeError naming the argument. A function's result is a vkattn.Tensor when its first array
// argument is one, else a NumPy array.
#pragma once

#include <pybind11/numpy.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device_tensor.hpp"
#include "input_checks.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn::python {

namespace py = pybind11;

// An input: host elements, C-contiguous in `dtype`, or a vkattn.Tensor's elements on the device.
// The Python objects keep both alive, so data() and `resident` may be read without the GIL for
// as long as this lives; copy or destroy it only with the GIL held.
struct ArrayInput {
  py::array array;  // host elements; empty when resident
  Shape shape;
  DType dtype = DType::F32;
  std::string name;
  py::object owner;                        // the vkattn.Tensor, when resident
  const DeviceTensor* resident = nullptr;  // owned by `owner`
  const void* data() const { return array.data(); }
};

// Which dtypes a vkattn.Tensor may have where a float input is expected: float32/float16, or also
// the K/V storage formats (k and v of attention).
enum class Stored { Float, FloatOrKvFormat };

// A float input (array, list, tuple or vkattn.Tensor). `as` forces float32 or float16 on host
// input (a vkattn.Tensor must already have it: ValueError otherwise); by default float16 stays
// float16 and float32/float64 become float32. Sizes are checked before anything is copied.
ArrayInput floatInput(const py::handle& value, const std::string& name, const SizeLimits& limits,
                      std::optional<DType> as = std::nullopt, Stored stored = Stored::Float);
// An integer input narrowed to int32 after checking every value lies in [min, max]. Read on the
// host: a vkattn.Tensor is downloaded.
ArrayInput intInput(const py::handle& value, const std::string& name, const SizeLimits& limits, int64_t min,
                    int64_t max);
// An already contiguous array of a dtype ArrayInput supports (e.g. after a NumPy reordering).
ArrayInput hostArray(py::array contiguous, DType dtype, std::string name = {});
// `value` where host elements are needed: a vkattn.Tensor as a NumPy array (downloaded), anything
// else as it is. With the GIL.
py::object hostValue(const py::handle& value);

// The dtype an input arrives in, by name: a vkattn.Tensor's, or NumPy's for anything array-like.
std::string arrivingDtype(const py::handle& value);

// An input on the device for one call: uploaded, or a vkattn.Tensor's own elements (not copied).
class DeviceInput {
 public:
  explicit DeviceInput(Tensor uploaded) : m_uploaded(std::move(uploaded)) {}
  explicit DeviceInput(TensorView resident) : m_resident(std::move(resident)) {}
  TensorView view() const { return m_uploaded ? m_uploaded->view() : m_resident; }
  operator TensorView() const { return view(); }  // NOLINT: usable wherever an op takes a view
  const Shape& shape() const { return m_uploaded ? m_uploaded->shape() : m_resident.shape; }

 private:
  std::optional<Tensor> m_uploaded;
  TensorView m_resident;
};

// Without the GIL, with the session locked (inside onDevice):
// A new tensor holding host input's values, stored as `storedAs` (converted, or encoded as bf16,
// Q8_0 or Q4_0).
Tensor newTensor(Context& ctx, const ArrayInput& host, DType storedAs);
DeviceInput upload(Context& ctx, const ArrayInput& input);
// The same values stored as `storedAs`. A vkattn.Tensor must already be stored so:
// InvalidArgument naming it otherwise.
DeviceInput upload(Context& ctx, const ArrayInput& input, DType storedAs);

// A function's result: downloaded for a NumPy caller, or kept on the device for a vkattn.Tensor one.
struct Result {
  Shape shape;
  DType dtype = DType::F32;
  std::vector<uint8_t> bytes;  // downloaded elements
  uint64_t kept = 0;           // or the kept tensor's id
};
// Without the GIL, with the session locked. `shape` (same element count) replaces the tensor's
// when given; `keep` keeps the tensor on the device instead of downloading it.
Result finish(Tensor tensor, bool keep, std::optional<Shape> shape = std::nullopt);
// K/V storage formats come back as their float32 values.
Result download(const Tensor& tensor, std::optional<Shape> shape = std::nullopt);

// With the GIL: a NumPy array, or a vkattn.Tensor for a kept result.
// A downloaded result's bytes become the array's own (moved, not copied).
py::object toPython(Result result);
py::array toNumpy(Result result);

}  // namespace vkattn::python
