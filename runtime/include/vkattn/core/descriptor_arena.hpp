// DescriptorArena: descriptor sets for one batch of dispatches, carved from pools that grow on
// demand and are all reset together when the batch has run.
#pragma once

#include <vector>

#include "vkattn/core/handle.hpp"

namespace vkattn {

class Device;

class DescriptorArena {
 public:
  explicit DescriptorArena(const Device& device) : m_device(&device) {}

  // A set of `layout`'s storage buffers, valid until reset().
  VkDescriptorSet allocate(VkDescriptorSetLayout layout);
  void reset() noexcept;

 private:
  const Device* m_device;
  std::vector<DescriptorPoolHandle> m_pools;
  std::size_t m_active = 0;  // the pool sets come from; earlier ones are full
};

}  // namespace vkattn
