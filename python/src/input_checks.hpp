// Checks every Python entry point runs before it copies or allocates anything: an array's logical
// size against host memory and the device's largest binding, and Python integers against the
// range an argument takes. Each failure is a Python exception naming the argument.
#pragma once

#include <pybind11/numpy.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

namespace vkattn::python {

namespace py = pybind11;

// The range of a 32-bit argument (positions, dims), for intArgument and intInput.
inline constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
inline constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// What one input tensor may occupy; read from the session's device.
struct SizeLimits {
  uint64_t hostBytes = 0;     // physical memory of this machine
  uint64_t bindingBytes = 0;  // maxStorageBufferRange: every op binds a tensor whole
};

// Sets a Python exception of `type` and throws it (pybind11 has no MemoryError or OverflowError).
[[noreturn]] void raise(PyObject* type, const std::string& message);

// Physical memory of this machine: no single input may need more.
uint64_t hostMemoryBytes();

// The logical element count of `array` (shape product, strides ignored: a broadcast or as_strided
// view counts every element it shows) times `elementBytes`, the size each element will have on
// the device. Raises MemoryError beyond host memory, ValueError beyond the binding limit or for a
// zero-size dimension; returns the byte count.
uint64_t checkArraySize(const py::array& array, std::size_t elementBytes, const std::string& name,
                        const SizeLimits& limits);

// A Python int in [min, max], else OverflowError (does not fit 64 bits) or ValueError; anything
// but an int (bool excluded) is a TypeError. All name the argument.
int64_t intArgument(const py::handle& value, const std::string& name, int64_t min = std::numeric_limits<int64_t>::min(),
                    int64_t max = std::numeric_limits<int64_t>::max());
// A pair of ints (a tuple or list of two), each in [min, max], else TypeError / ValueError naming the
// argument and saying what `pair` means (e.g. "(left, right)").
std::pair<int64_t, int64_t> pairArgument(const py::handle& value, const std::string& name, const std::string& pair,
                                         int64_t min, int64_t max = std::numeric_limits<int64_t>::max());
// The path a str or os.PathLike names, else TypeError naming the argument.
std::string pathArgument(const py::handle& value, const std::string& name);
// pathArgument, and FileNotFoundError (with errno and filename, as Python's own) when no file is there.
std::string existingFile(const py::handle& value, const std::string& name);
// A finite number (float, int, NumPy scalar), else TypeError / ValueError naming the argument.
double finiteArgument(const py::handle& value, const std::string& name);

// Every value of a float array finite, else ValueError naming the argument, the kind (NaN, +inf or
// -inf) and the index of the first such value.
void checkFinite(const py::array& array, const std::string& name);

// Every value of an integer array in [min, max] (checked before narrowing to int32), else ValueError.
void checkIntRange(const py::array& array, const std::string& name, int64_t min, int64_t max);

}  // namespace vkattn::python
