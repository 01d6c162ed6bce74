// The module's one Context: created on first use on the default device, replaced by use_device().
// Objects that hold device memory for a Python object (a layer's uploaded weights, a
// vkattn.Tensor's tensor) are kept here, so use_device() drops them before the device they were
// made on.
//
// Threads: one mutex guards the session. Python entry points reach the device only through
// onDevice(), which releases the GIL first and then takes the mutex, and the work it runs never
// touches a Python object. So other Python threads run while the device works, calls from
// several threads queue on the device one at a time, and no thread waits for the GIL while it
// holds the mutex (which could deadlock against a thread holding the GIL and waiting for it).
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "input_checks.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn::python {

namespace py = pybind11;

std::mutex& sessionMutex();
// The session's context, created on first use. Only with sessionMutex() held.
Context& session();
// Replaces the context by one on `device`. Only with sessionMutex() held.
void useDevice(const std::optional<std::string>& device);

// Runs work(session()) with the GIL released and the session locked; returns what it returns.
// `work` must not create, copy or destroy Python objects.
template <class Work>
auto onDevice(Work&& work) {
  py::gil_scoped_release released;
  std::lock_guard<std::mutex> lock(sessionMutex());
  return work(session());
}

// Drops the resources and the context. Registered with Python's atexit: at the C++ static
// destructors the Vulkan driver may already have torn itself down (lavapipe crashed there).
void closeSession() noexcept;

// Size limits of the session's device for checkArraySize.
SizeLimits sizeLimits();

struct SessionResource {
  virtual ~SessionResource() = default;
};

// What `owner` stored on the current session, or nullptr (none yet, or the device changed).
// These three only with sessionMutex() held.
SessionResource* sessionResource(const void* owner);
SessionResource& setSessionResource(const void* owner, std::unique_ptr<SessionResource> resource);
void dropSessionResource(const void* owner) noexcept;

// Tensors kept on the session's device for vkattn.Tensor objects, under ids never reused. These
// three only with sessionMutex() held.
uint64_t keepTensor(Tensor tensor);
// The kept tensor `id`, or nullptr once use_device() has replaced the device it was made on.
const Tensor* keptTensor(uint64_t id);
void dropTensor(uint64_t id) noexcept;

// Bytes copied between host and device by the Python entry points since the module loaded (what
// vkattn.transfer_bytes() reports). Counted where arrays are uploaded and results downloaded.
struct TransferBytes {
  uint64_t hostToDevice = 0, deviceToHost = 0;
};
TransferBytes& transferBytes();  // only with sessionMutex() held

}  // namespace vkattn::python
