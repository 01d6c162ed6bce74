// One-line errors for calls pybind11 cannot match (keyword_check.cpp).
#pragma once

#include <pybind11/pybind11.h>

namespace vkattn::python {

namespace py = pybind11;

// Wraps every public function and method of `m`; call once, after every binding is defined.
void checkKeywords(py::module_& m);

}  // namespace vkattn::python
