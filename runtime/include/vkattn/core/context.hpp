// Context: what a program needs to run vkattn ops on one device. Owns, in order, the Instance,
// the Device, the PipelineLibrary and a Recorder. Ops record into the recorder and submit at
// once, unless a Batch is open, in which case they run together when the batch submits.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vkattn/core/device.hpp"
#include "vkattn/core/device_info.hpp"
#include "vkattn/core/instance.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/core/recorder.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn {

struct ContextOptions {
  // Index or name substring; defaults to VKATTN_DEVICE, then the best device by kind.
  std::optional<std::string> device;
  // Khronos validation; defaults to VKATTN_VALIDATION.
  std::optional<bool> validation;
  // Kernel family; defaults to VKATTN_PROFILE (cpu|gpu), then the device's kind.
  std::optional<KernelProfile> profile;
  // Pipeline cache file; defaults to defaultPipelineCachePath(). An empty path disables it.
  std::optional<std::filesystem::path> pipelineCache;
  // Ops check their arguments and create their pipelines (with the specialization they would run)
  // but record and run nothing, and tensors hold no memory: for reading a driver's compiler
  // statistics where nothing can execute (`vkattn devices --pipelines` on RADV's null device).
  // What is written to a tensor is dropped; reading one back or timing throws Unsupported.
  bool compileOnly = false;

  // For a client that presents with this context's device (the viewer), so that its swapchain and
  // the ops share one device and one queue. All empty: the compute-only setup.
  // Extra instance extensions (e.g. glfwGetRequiredInstanceExtensions) and device extensions
  // (e.g. VK_KHR_swapchain); a missing one throws Unsupported naming it.
  std::vector<std::string> instanceExtensions;
  std::vector<std::string> deviceExtensions;
  // Capabilities the queue needs besides compute (e.g. VK_QUEUE_GRAPHICS_BIT), and a further test
  // of a queue family (e.g. glfwGetPhysicalDevicePresentationSupport).
  VkQueueFlags queueFlags = 0;
  std::function<bool(VkInstance, VkPhysicalDevice, uint32_t family)> queueFamilyFilter;
};

class Context;

// Names a context whose instance and device another context borrows (see Context(SharedDevice)).
struct SharedDevice {
  const Context& owner;
};

class Context {
 public:
  explicit Context(const ContextOptions& options = {});
  // A context on `shared.owner`'s instance and device, which must outlive it, with a pipeline
  // library and a recorder of its own: ops on another thread, on the same VkDevice and queue
  // (submissions take Device::queueMutex()), whose tensors the owner's ops can read.
  explicit Context(SharedDevice shared);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const Instance& instance() const noexcept { return *m_instance; }
  const Device& device() const noexcept { return *m_device; }
  const DeviceInfo& info() const noexcept { return m_device->info(); }
  KernelProfile profile() const noexcept { return m_profile; }
  PipelineLibrary& pipelines() noexcept { return *m_pipelines; }
  Recorder& recorder() noexcept { return *m_recorder; }

  Tensor tensor(Shape shape, DType dtype = DType::F32) const { return Tensor(*m_device, std::move(shape), dtype); }
  Tensor tensor(Shape shape, std::span<const float> values, DType dtype = DType::F32) const {
    return Tensor::fromHost(*m_device, std::move(shape), values, dtype);
  }

  // A temporary for composite ops: freed when the work recorded so far has run, i.e. at the next
  // submission, so composite ops open a Batch before taking scratch. Contents start undefined.
  TensorView scratch(Shape shape, DType dtype = DType::F32);

  // Called by every op after recording: submits now unless a batch is open.
  void flush();
  bool batching() const noexcept { return m_batchDepth > 0; }

  // Every device on this machine, in enumeration order.
  static std::vector<DeviceInfo> listDevices();

 private:
  friend class Batch;
  friend class Replay;
  std::unique_ptr<Instance> m_ownedInstance;  // empty when borrowed (SharedDevice)
  std::unique_ptr<Device> m_ownedDevice;
  const Instance* m_instance = nullptr;
  const Device* m_device = nullptr;
  std::unique_ptr<PipelineLibrary> m_pipelines;
  std::unique_ptr<Recorder> m_recorder;
  KernelProfile m_profile = KernelProfile::Gpu;
  int m_batchDepth = 0;
};

// Collects the ops issued while it is open into one submission; submit() runs them and waits.
// Destroying an unsubmitted batch drops its work.
class Batch {
 public:
  explicit Batch(Context& context);
  ~Batch();
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  uint32_t timestamp() { return m_context.recorder().timestamp(); }
  void submit();
  double elapsedNs(uint32_t from, uint32_t to) const { return m_context.recorder().elapsedNs(from, to); }

 private:
  Context& m_context;
  bool m_open = true;
};

std::optional<KernelProfile> profileFromEnvironment();

}  // namespace vkattn
