#include "vkattn/core/command_context.hpp"

#include "vkattn/core/device.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/fault_injection.hpp"

namespace vkattn {

CommandContext::CommandContext(const Device& device, bool resettable) : m_device(&device) {
  VkDevice dev = device.handle();
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = resettable ? VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT : VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  poolInfo.queueFamilyIndex = device.queueFamily();
  checkVk(vkCreateCommandPool(dev, &poolInfo, nullptr, m_pool.receive(dev)), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = m_pool.get();
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  checkVk(vkAllocateCommandBuffers(dev, &alloc, &m_buffer), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  checkVk(vkCreateFence(dev, &fenceInfo, nullptr, m_fence.receive(dev)), "vkCreateFence");
}

void CommandContext::begin() {
  if (m_recording) return;
  m_device->requireUsable();
  VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  checkVk(vkBeginCommandBuffer(m_buffer, &info), "vkBeginCommandBuffer");
  m_recording = true;
}

void CommandContext::submitAndWait() {
  VkDevice dev = m_device->handle();
  m_recording = false;
  checkVk(vkEndCommandBuffer(m_buffer), "vkEndCommandBuffer");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &m_buffer;
  VkFence fence = m_fence.get();
  checkVk(vkResetFences(dev, 1, &fence), "vkResetFences");
  const std::optional<VkResult> injected = detail::takeInjectedFault(FaultSite::QueueSubmit);
  const char* call = "submitting work (vkQueueSubmit)";
  VkResult result = VK_SUCCESS;
  if (injected) {
    result = *injected;
  } else {
    std::lock_guard queue(m_device->queueMutex());
    result = vkQueueSubmit(m_device->queue(), 1, &submit, fence);
  }
  if (result == VK_SUCCESS) {
    call = "waiting for work (vkWaitForFences)";
    result = vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);
  }
  if (result != VK_SUCCESS) {
    if (result == VK_ERROR_DEVICE_LOST) m_device->markLost(call);
    throwVulkanError(call, result);
  }
}

void CommandContext::reset() noexcept {
  if (m_recording) vkEndCommandBuffer(m_buffer);
  m_recording = false;
  vkResetCommandBuffer(m_buffer, 0);
}

}  // namespace vkattn
