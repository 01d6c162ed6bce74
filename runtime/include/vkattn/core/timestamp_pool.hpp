// TimestampPool: GPU timestamps for one submission. Support and the number of valid bits come
// from the queue family the device submits to; results are masked to those bits.
#pragma once

#include <cstdint>
#include <vector>

#include "vkattn/core/handle.hpp"

namespace vkattn {

class Device;

class TimestampPool {
 public:
  static constexpr uint32_t kDefaultCapacity = 256;

  explicit TimestampPool(const Device& device, uint32_t capacity = kDefaultCapacity);

  uint32_t capacity() const noexcept { return m_capacity; }

  bool supported() const noexcept { return static_cast<bool>(m_pool); }
  uint32_t used() const noexcept { return m_used; }
  // Records the reset of every slot; call at the start of a command buffer.
  void recordReset(VkCommandBuffer cmd) const;
  // Records a timestamp after all earlier commands; returns its slot.
  uint32_t record(VkCommandBuffer cmd);
  // After the submission has completed: reads the slots written and starts afresh.
  void collect();
  void clear() noexcept { m_used = 0; }
  // Nanoseconds between two slots of the last collect().
  double elapsedNs(uint32_t from, uint32_t to) const;

 private:
  const Device* m_device;
  uint32_t m_capacity;
  QueryPoolHandle m_pool;
  uint64_t m_mask = 0;  // timestampValidBits of the queue family
  uint32_t m_used = 0;
  std::vector<uint64_t> m_results;
};

}  // namespace vkattn
