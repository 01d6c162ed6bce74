// CommandContext: a command pool, primary command buffers and a fence on the device's queue —
// what every submission needs (the Recorder's batches, one-shot uploads, the viewer's frames).
// A long batch may be handed to the queue in parts (submitPart) while the rest is still being
// recorded, so that the device runs the first part while the host records the next; the last
// part is submitted with the fence (submitAndWait), which waits for every part. A reusable
// context records its buffer once (end) and submits it as often as asked (resubmitAndWait).
#pragma once

#include <vector>

#include "vkattn/core/handle.hpp"

namespace vkattn {

class Device;

class CommandContext {
 public:
  // `resettable`: the buffer is re-recorded many times (else the pool is transient, used once).
  // `reusable`: its recording is submitted many times (no one-time-submit, no parts).
  CommandContext(const Device& device, bool resettable, bool reusable = false);

  // The buffer being recorded.
  VkCommandBuffer buffer() const noexcept { return m_buffers[m_current]; }
  // Starts recording (one-time-submit, unless reusable).
  void begin();
  // Ends the recording of a reusable context, which resubmitAndWait then submits.
  void end();
  // Submits the ended recording of a reusable context and waits for it.
  void resubmitAndWait();
  // Ends the buffer being recorded, submits it without waiting and goes on recording into another
  // (resettable contexts only). Work in later parts runs after it in queue order; a barrier at the
  // start of the next part orders memory accesses as within one buffer.
  void submitPart();
  // Ends recording, submits on the device's queue and waits for the fence (and so for every
  // part submitted before).
  void submitAndWait();
  // Drops what was recorded, recording or not. Parts already submitted must have completed (a
  // submitAndWait or a lost device).
  void reset() noexcept;

 private:
  void submit(VkFence fence);
  void queueSubmit(VkFence fence);  // the buffer, ended
  void wait();                      // for the fence
  void waitForParts() noexcept;     // the queue idle, where parts may still run

  const Device* m_device;
  bool m_resettable;
  bool m_reusable;
  CommandPoolHandle m_pool;
  std::vector<VkCommandBuffer> m_buffers;  // freed with the pool
  std::size_t m_current = 0;               // the one being recorded; those before it are submitted
  FenceHandle m_fence;
  bool m_recording = false;
  bool m_partsPending = false;  // parts submitted that no fence wait has covered yet
};

}  // namespace vkattn
