// Device: the logical device on one physical device, its compute queue, and the persisted
// pipeline cache. Owns everything created on it through the objects that borrow it.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "vkattn/core/device_info.hpp"
#include "vkattn/core/handle.hpp"
#include "vkattn/core/instance.hpp"

namespace vkattn {

// What a client that also draws with the device (the viewer) needs beyond compute. The defaults
// give the compute-only device every op runs on.
struct DeviceOptions {
  // Further device extensions, e.g. VK_KHR_swapchain. A missing one throws Unsupported naming it.
  std::vector<std::string> extensions;
  // Capabilities the one queue must have besides compute, e.g. VK_QUEUE_GRAPHICS_BIT.
  VkQueueFlags queueFlags = 0;
  // A further test of each queue family (e.g. that it can present to a window); empty accepts all.
  std::function<bool(VkPhysicalDevice, uint32_t family)> queueFamilyFilter;
  // Creates the device and its pipelines but never submits work or waits for it (see
  // ContextOptions::compileOnly): drivers that compile without hardware (RADV's null device) can
  // create pipelines but not run them.
  bool compileOnly = false;
};

class Device {
 public:
  // Creates the logical device for `physical`. `pipelineCachePath` (empty: none) is read now and
  // written back on destruction.
  Device(const Instance& instance, VkPhysicalDevice physical, DeviceInfo info, std::filesystem::path pipelineCachePath,
         const DeviceOptions& options = {});
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  VkDevice handle() const noexcept { return m_device.get(); }
  VkPhysicalDevice physical() const noexcept { return m_physical; }
  VkQueue queue() const noexcept { return m_queue; }
  // Pipelines only: nothing is ever submitted to queue() (DeviceOptions::compileOnly).
  bool compileOnly() const noexcept { return m_compileOnly; }
  // Held around every use of queue() that Vulkan wants externally synchronised (vkQueueSubmit,
  // vkQueuePresentKHR, vkDeviceWaitIdle), so that contexts sharing this device on several threads
  // (a window presenting while a worker computes) can submit to its one queue.
  std::mutex& queueMutex() const noexcept { return m_queueMutex; }
  uint32_t queueFamily() const noexcept { return m_queueFamily; }
  VkPipelineCache pipelineCache() const noexcept { return m_pipelineCache.get(); }
  const DeviceInfo& info() const noexcept { return m_info; }
  const Instance& instance() const noexcept { return m_instance; }

  // Memory type index with all of `required` set, preferring those that also have `preferred`.
  std::optional<uint32_t> findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required,
                                         VkMemoryPropertyFlags preferred = 0) const;
  // True when the largest device-local heap is also host-visible (CPU drivers, integrated GPUs,
  // resizable BAR): buffers are then mapped directly instead of going through staging copies.
  bool unifiedMemory() const noexcept { return m_unifiedMemory; }
  // Pipelines capture the driver's statistics (DeviceInfo::pipelineExecutableInfo, asked for with
  // VKATTN_PIPELINE_STATISTICS=1 when the device is created): see pipelineStatistics().
  bool capturesPipelineStatistics() const noexcept { return m_captureStatistics; }
  // Valid bits of timestamps written on this device's queue (0: the queue has no timestamps).
  uint32_t timestampValidBits() const noexcept { return m_timestampValidBits; }

  void savePipelineCache() const;
  // True when a pipeline cache file for this device existed (an earlier run or `vkattn warmup`
  // wrote it) and the driver took it. Some drivers (lavapipe) keep their compiled code in a cache
  // of their own and write only a header here; the file still marks a device used before.
  bool pipelineCacheLoaded() const noexcept { return m_pipelineCacheLoaded; }

  // After VK_ERROR_DEVICE_LOST nothing more may run on this device: every later use throws
  // DeviceLost, naming `during` (the call that found the loss).
  void markLost(const std::string& during) const;
  void requireUsable() const;

  // Nanoseconds the host has spent waiting for this device's work to finish (every fence wait of
  // every command context on it, since it was created): what the rest of a host loop's time is
  // not. `vkattn bench generate` splits a decoded token's time so.
  uint64_t waitedNs() const noexcept { return m_waitedNs.load(std::memory_order_relaxed); }
  void addWaitedNs(uint64_t ns) const noexcept { m_waitedNs.fetch_add(ns, std::memory_order_relaxed); }

 private:
  const Instance& m_instance;
  VkPhysicalDevice m_physical;
  DeviceInfo m_info;
  OwnedDevice m_device;  // declared before what is made from it, so destroyed after it
  VkQueue m_queue = VK_NULL_HANDLE;
  uint32_t m_queueFamily = 0;
  PipelineCacheHandle m_pipelineCache;
  std::filesystem::path m_pipelineCachePath;
  bool m_pipelineCacheLoaded = false;
  VkPhysicalDeviceMemoryProperties m_memory{};
  bool m_unifiedMemory = false;
  bool m_captureStatistics = false;
  bool m_compileOnly = false;
  mutable std::atomic<bool> m_lost{false};
  mutable std::atomic<uint64_t> m_waitedNs{0};
  mutable std::string m_lostDuring;  // written once, before m_lost is set
  uint32_t m_timestampValidBits = 0;
  mutable std::mutex m_queueMutex;
};

// Default location of the pipeline cache: $VKATTN_PIPELINE_CACHE, else
// $XDG_CACHE_HOME/vkattn or ~/.cache/vkattn, one file per pipelineCacheUUID.
std::filesystem::path defaultPipelineCachePath(const DeviceInfo& info);

}  // namespace vkattn
