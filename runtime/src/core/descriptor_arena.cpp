#include "vkattn/core/descriptor_arena.hpp"

#include "vkattn/core/device.hpp"
#include "vkattn/core/vulkan_error.hpp"

namespace vkattn {
namespace {

constexpr uint32_t kSetsPerPool = 256;
constexpr uint32_t kBuffersPerSet = 16;  // the most storage buffers any kernel binds, with room

}  // namespace

VkDescriptorSet DescriptorArena::allocate(VkDescriptorSetLayout layout) {
  VkDevice dev = m_device->handle();
  for (;;) {
    if (m_active == m_pools.size()) {
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * kBuffersPerSet};
      VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      info.maxSets = kSetsPerPool;
      info.poolSizeCount = 1;
      info.pPoolSizes = &size;
      DescriptorPoolHandle pool;
      checkVk(vkCreateDescriptorPool(dev, &info, nullptr, pool.receive(dev)), "vkCreateDescriptorPool");
      m_pools.push_back(std::move(pool));
    }
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = m_pools[m_active].get();
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &layout;
    VkDescriptorSet set;
    const VkResult result = vkAllocateDescriptorSets(dev, &alloc, &set);
    if (result == VK_SUCCESS) return set;
    if (result != VK_ERROR_OUT_OF_POOL_MEMORY && result != VK_ERROR_FRAGMENTED_POOL)
      throw VulkanError("vkAllocateDescriptorSets", result);
    ++m_active;  // this pool is full: move on to the next (created above if needed)
  }
}

void DescriptorArena::reset() noexcept {
  for (const DescriptorPoolHandle& pool : m_pools) vkResetDescriptorPool(m_device->handle(), pool.get(), 0);
  m_active = 0;
}

}  // namespace vkattn
