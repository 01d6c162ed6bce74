#include "vkattn/core/submit_once.hpp"

#include "vkattn/core/device.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn {

void submitOnce(const Device& device, const std::function<void(VkCommandBuffer)>& record) {
  VkDevice dev = device.handle();
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  poolInfo.queueFamilyIndex = device.queueFamily();
  VkCommandPool pool = VK_NULL_HANDLE;
  checkVk(vkCreateCommandPool(dev, &poolInfo, nullptr, &pool), "vkCreateCommandPool");
  VkFence fence = VK_NULL_HANDLE;
  try {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    checkVk(vkAllocateCommandBuffers(dev, &alloc, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    checkVk(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
    record(cmd);
    checkVk(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    checkVk(vkCreateFence(dev, &fenceInfo, nullptr, &fence), "vkCreateFence");
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    checkVk(vkQueueSubmit(device.queue(), 1, &submit, fence), "vkQueueSubmit");
    checkVk(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  } catch (...) {
    vkDeviceWaitIdle(dev);  // the work may still be running when a later step failed
    if (fence) vkDestroyFence(dev, fence, nullptr);
    vkDestroyCommandPool(dev, pool, nullptr);
    throw;
  }
  vkDestroyFence(dev, fence, nullptr);
  vkDestroyCommandPool(dev, pool, nullptr);
}

}  // namespace vkattn
