// CommandContext: a command pool, one primary command buffer and a fence on the device's queue —
// what every submission needs (the Recorder's batches, one-shot uploads, the viewer's frames).
#pragma once

#include "vkattn/core/handle.hpp"

namespace vkattn {

class Device;

class CommandContext {
 public:
  // `resettable`: the buffer is re-recorded many times (else the pool is transient, used once).
  CommandContext(const Device& device, bool resettable);

  VkCommandBuffer buffer() const noexcept { return m_buffer; }
  // Starts recording (one-time-submit).
  void begin();
  // Ends recording, submits on the device's queue and waits for the fence.
  void submitAndWait();
  // Drops what was recorded, recording or not.
  void reset() noexcept;

 private:
  const Device* m_device;
  CommandPoolHandle m_pool;
  VkCommandBuffer m_buffer = VK_NULL_HANDLE;  // freed with the pool
  FenceHandle m_fence;
  bool m_recording = false;
};

}  // namespace vkattn
