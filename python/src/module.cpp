// The `vkattn` Python module: vkattn's kernels on NumPy arrays, errors as ValueError/TypeError.
#include "bindings.hpp"
#include "keyword_check.hpp"
#include "session.hpp"
#include "vkattn/core/vulkan_error.hpp"

PYBIND11_MODULE(vkattn, m) {
  using namespace vkattn;
  m.doc() = "Attention kernels on any Vulkan GPU (or lavapipe), on NumPy arrays.";
  pybind11::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InvalidArgument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const Unsupported& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const OutOfMemory& e) {  // the device or host had no room; the session keeps working
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  python::bindTensor(m);  // first: the other functions' signatures name vkattn.Tensor
  python::bindDevices(m);
  python::bindRowOps(m);
  python::bindAttention(m);
  python::bindFlashAttn(m);
  python::bindFlashAttnKvcache(m);
  python::bindAttentionLayer(m);
  python::bindViewer(m);
  python::bindStorageFormats(m);
  python::bindGguf(m);
#ifdef VKATTN_LANGUAGE_MODELS
  python::bindLanguageModel(m);
#endif
  python::checkKeywords(m);  // last: it wraps what the bindings above defined
  pybind11::module_::import("atexit").attr("register")(pybind11::cpp_function([] {
    pybind11::gil_scoped_release released;
    python::closeSession();
  }));
}
