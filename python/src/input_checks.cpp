#include "input_checks.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>

namespace vkattn::python {
namespace {

std::string mib(uint64_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

std::string shapeText(const py::array& array) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < array.ndim(); ++i) s += (i ? ", " : "") + std::to_string(array.shape(i));
  return s + (array.ndim() == 1 ? ",)" : ")");
}

// Python's comparison of two ints, so that uint64 values beyond int64 compare correctly.
bool less(const py::handle& a, const py::handle& b) {
  const int result = PyObject_RichCompareBool(a.ptr(), b.ptr(), Py_LT);
  if (result < 0) throw py::error_already_set();
  return result == 1;
}

}  // namespace

void raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

uint64_t hostMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
}

uint64_t checkArraySize(const py::array& array, std::size_t elementBytes, const std::string& name,
                        const SizeLimits& limits) {
  // The product of the dimensions, overflow-checked; an empty dimension is refused outright.
  uint64_t count = 1;
  bool overflow = false;
  for (py::ssize_t i = 0; i < array.ndim(); ++i) {
    const auto d = static_cast<uint64_t>(array.shape(i));
    if (d == 0)
      throw py::value_error("'" + name + "' has shape " + shapeText(array) + "; every dimension must be at least 1");
    if (count > std::numeric_limits<uint64_t>::max() / d)
      overflow = true;
    else
      count *= d;
  }
  if (overflow || count > std::numeric_limits<uint64_t>::max() / elementBytes ||
      count * elementBytes > limits.hostBytes)
    raise(PyExc_MemoryError, "'" + name + "' of shape " + shapeText(array) + " needs " +
                                 (overflow ? std::string("more than 2^64 bytes") : mib(count * elementBytes)) +
                                 ", more than this machine's memory (" + mib(limits.hostBytes) + ")");
  const uint64_t bytes = count * elementBytes;
  if (bytes > limits.bindingBytes)
    throw py::value_error("'" + name + "' of shape " + shapeText(array) + " needs " + mib(bytes) +
                          " on the device, more than its largest storage binding (maxStorageBufferRange, " +
                          mib(limits.bindingBytes) + "); split it into smaller arrays");
  return bytes;
}

int64_t intArgument(const py::handle& value, const std::string& name, int64_t min, int64_t max) {
  if (PyFloat_Check(value.ptr()) || !PyIndex_Check(value.ptr()))
    throw py::type_error("'" + name + "' must be an int, got " +
                         std::string(py::str(value.get_type().attr("__name__"))));
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  const std::string range = " (expected " + std::to_string(min) + " .. " + std::to_string(max) + ")";
  if (overflow != 0)
    raise(PyExc_OverflowError,
          "'" + name + "' is " + std::string(py::str(index)) + ", which does not fit 64 bits" + range);
  if (v < min || v > max) throw py::value_error("'" + name + "' is " + std::to_string(v) + ", out of range" + range);
  return v;
}

std::pair<int64_t, int64_t> pairArgument(const py::handle& value, const std::string& name, const std::string& pair,
                                         int64_t min, int64_t max) {
  if (!py::isinstance<py::tuple>(value) && !py::isinstance<py::list>(value))
    throw py::type_error("'" + name + "' must be a pair " + pair + ", got " +
                         std::string(py::str(value.get_type().attr("__name__"))));
  const auto sides = py::reinterpret_borrow<py::sequence>(value);
  if (sides.size() != 2)
    throw py::value_error("'" + name + "' must be a pair " + pair + ", got " + std::to_string(sides.size()) +
                          " values");
  return {intArgument(sides[0], name, min, max), intArgument(sides[1], name, min, max)};
}

std::string pathArgument(const py::handle& value, const std::string& name) {
  try {
    return py::module_::import("os").attr("fspath")(value).cast<std::string>();
  } catch (const py::error_already_set&) {
  } catch (const py::cast_error&) {
  }
  throw py::type_error("'" + name + "' must be a str or a path, got " +
                       std::string(py::str(value.get_type().attr("__name__"))));
}

std::string existingFile(const py::handle& value, const std::string& name) {
  const std::string path = pathArgument(value, name);
  std::error_code ignored;
  if (!std::filesystem::exists(path, ignored)) {
    const py::object error =
        py::module_::import("builtins").attr("FileNotFoundError")(ENOENT, std::strerror(ENOENT), path);
    PyErr_SetObject(PyExc_FileNotFoundError, error.ptr());
    throw py::error_already_set();
  }
  return path;
}

double finiteArgument(const py::handle& value, const std::string& name) {
  // Whatever float() takes without parsing text: floats, ints, NumPy scalars.
  const bool text = PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr());
  const double d = text ? -1.0 : PyFloat_AsDouble(value.ptr());
  if (text || (d == -1.0 && PyErr_Occurred())) {
    PyErr_Clear();
    throw py::type_error("'" + name + "' must be a number, got " +
                         std::string(py::str(value.get_type().attr("__name__"))));
  }
  if (!std::isfinite(d)) throw py::value_error("'" + name + "' must be finite, got " + std::string(py::str(value)));
  return d;
}

void checkFinite(const py::array& array, const std::string& name) {
  const py::module_ np = py::module_::import("numpy");
  const py::object finite = np.attr("isfinite")(array);
  if (finite.attr("all")().cast<bool>()) return;
  const py::tuple at = np.attr("unravel_index")(np.attr("argmin")(finite), array.attr("shape"));
  const double value = array.attr("__getitem__")(at).cast<double>();
  std::string index = "(";
  for (std::size_t i = 0; i < at.size(); ++i) index += (i ? ", " : "") + std::string(py::str(at[i]));
  index += at.size() == 1 ? ",)" : ")";
  const std::string kind = std::isnan(value) ? "NaN" : value > 0 ? "+inf" : "-inf";
  throw py::value_error("'" + name + "' holds " + kind + " at index " + index + "; its values must be finite");
}

void checkIntRange(const py::array& array, const std::string& name, int64_t min, int64_t max) {
  if (array.size() == 0) return;
  const py::object lo = array.attr("min")(), hi = array.attr("max")();
  if (less(lo, py::int_(min)) || less(py::int_(max), hi))
    throw py::value_error("'" + name + "' holds values from " + std::string(py::str(lo)) + " to " +
                          std::string(py::str(hi)) + "; expected " + std::to_string(min) + " .. " +
                          std::to_string(max));
}

}  // namespace vkattn::python
