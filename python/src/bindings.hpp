// One registration function per area of the Python module.
#pragma once

#include <pybind11/pybind11.h>

namespace vkattn::python {

namespace py = pybind11;

void bindDevices(py::module_& m);
void bindRowOps(py::module_& m);
void bindAttention(py::module_& m);
void bindFlashAttn(py::module_& m);
void bindFlashAttnKvcache(py::module_& m);
void bindAttentionLayer(py::module_& m);
void bindViewer(py::module_& m);
void bindStorageFormats(py::module_& m);
void bindTensor(py::module_& m);
void bindGguf(py::module_& m);
void bindLanguageModel(py::module_& m);  // when built with VKATTN_LANGUAGE_MODELS

}  // namespace vkattn::python
