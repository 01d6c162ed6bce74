// Recorder: one command buffer that collects dispatches until it is submitted, with the
// descriptor sets they bind and a timestamp query pool. Reusable: submit() waits, then the
// recorder is empty and ready again.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

namespace vkattn {

class Buffer;
class Device;
class Pipeline;

struct GroupCount {
  uint32_t x = 1, y = 1, z = 1;
};

// Where one dispatch reports a NaN in its inputs: bit i of the uint at `slot` in `buffer` stands
// for the i-th of the argument names given when the slot was taken.
struct StatusSlot {
  const Buffer* buffer = nullptr;
  uint32_t slot = 0;
};

// One buffer bound to one binding, by the binding's name in shaders/include/kernel_interface.h:
// {ATTN_BINDING_Q, q.buffer}.
struct Bind {
  uint32_t binding;
  const Buffer* buffer;
};

class Recorder {
 public:
  static constexpr uint32_t kMaxTimestamps = 256;

  explicit Recorder(const Device& device);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Records one dispatch. Each buffer is bound whole to its named binding; every binding of the
  // pipeline must be named exactly once. A barrier before the dispatch orders it after every
  // earlier one in this recorder.
  void dispatch(const Pipeline& pipeline, std::initializer_list<Bind> buffers, const void* push, uint32_t pushBytes,
                GroupCount groups);
  template <typename Push>
  void dispatch(const Pipeline& pipeline, std::initializer_list<Bind> buffers, const Push& push, GroupCount groups) {
    dispatch(pipeline, buffers, &push, sizeof(Push), groups);
  }

  // A status slot for one dispatch of `op` whose inputs are `arguments`. After the submission,
  // a set bit becomes InvalidArgument(arguments[bit], problems[bit]); a problem left out or empty
  // reads "input contains NaN".
  StatusSlot statusSlot(std::string op, std::vector<std::string> arguments, std::vector<std::string> problems = {});
  // Keeps a buffer alive until the work recorded so far has run.
  const Buffer& keepAlive(Buffer buffer);

  // Writes a GPU timestamp after all earlier work; returns its slot for elapsedNs().
  uint32_t timestamp();
  bool empty() const noexcept { return m_dispatches == 0 && m_timestamps == 0; }

  // Submits what was recorded, waits for it, reads the timestamps and starts recording afresh.
  // Throws InvalidArgument if a dispatch reported a NaN input.
  void submit();
  // Nanoseconds between two timestamps of the last submit.
  double elapsedNs(uint32_t from, uint32_t to) const;
  // Drops what was recorded without running it.
  void discard() noexcept;

 private:
  void begin();
  VkDescriptorSet allocateSet(VkDescriptorSetLayout layout);

  const Device& m_device;
  VkCommandPool m_pool = VK_NULL_HANDLE;
  VkCommandBuffer m_cmd = VK_NULL_HANDLE;
  VkFence m_fence = VK_NULL_HANDLE;
  VkQueryPool m_queries = VK_NULL_HANDLE;
  std::vector<VkDescriptorPool> m_descriptorPools;
  std::size_t m_activePool = 0;
  uint32_t m_dispatches = 0;
  uint32_t m_timestamps = 0;
  std::vector<uint64_t> m_results;
  bool m_recording = false;

  struct StatusUse {
    std::string op;
    std::vector<std::string> arguments;
    std::vector<std::string> problems;
  };
  std::vector<std::unique_ptr<Buffer>> m_statusBuffers;  // kStatusSlotsPerBuffer uints each
  std::vector<StatusUse> m_statusUses;                  // one per slot taken, in order
  std::vector<std::unique_ptr<Buffer>> m_transient;
};

// Group counts for `items` work items of `perGroup` each, spread over x then y so that no
// dimension exceeds the device's limit. Shaders recover the flat index as
// gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x and skip indices past the end.
GroupCount groupsFor(const Device& device, uint64_t items, uint64_t perGroup = 1);

}  // namespace vkattn
