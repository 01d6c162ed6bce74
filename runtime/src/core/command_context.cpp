#include "vkattn/core/command_context.hpp"

#include <chrono>
#include <mutex>

#include "vkattn/core/device.hpp"
#include "vkattn/core/fault_injection.hpp"
#include "vkattn/core/vulkan_error.hpp"

namespace vkattn {

CommandContext::CommandContext(const Device& device, bool resettable, bool reusable)
    : m_device(&device), m_resettable(resettable), m_reusable(reusable) {
  VkDevice dev = device.handle();
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = resettable ? VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT : VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  poolInfo.queueFamilyIndex = device.queueFamily();
  checkVk(vkCreateCommandPool(dev, &poolInfo, nullptr, m_pool.receive(dev)), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = m_pool.get();
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  m_buffers.push_back(VK_NULL_HANDLE);
  checkVk(vkAllocateCommandBuffers(dev, &alloc, &m_buffers[0]), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  checkVk(vkCreateFence(dev, &fenceInfo, nullptr, m_fence.receive(dev)), "vkCreateFence");
}

void CommandContext::begin() {
  if (m_recording) return;
  m_device->requireUsable();
  VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  info.flags = m_reusable ? 0 : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  checkVk(vkBeginCommandBuffer(buffer(), &info), "vkBeginCommandBuffer");
  m_recording = true;
}

void CommandContext::end() {
  if (!m_reusable) throw Error("end: only a reusable command context keeps its recording");
  if (!m_recording) return;
  m_recording = false;
  checkVk(vkEndCommandBuffer(buffer()), "vkEndCommandBuffer");
}

void CommandContext::resubmitAndWait() {
  if (!m_reusable || m_recording) throw Error("resubmitAndWait: no ended recording of a reusable context");
  VkFence fence = m_fence.get();
  checkVk(vkResetFences(m_device->handle(), 1, &fence), "vkResetFences");
  queueSubmit(fence);
  wait();
}

void CommandContext::submitPart() {
  if (!m_resettable || m_reusable) throw Error("submitPart: this command context submits its recording whole");
  submit(VK_NULL_HANDLE);
  m_partsPending = true;
  if (++m_current == m_buffers.size()) {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = m_pool.get();
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    m_buffers.push_back(VK_NULL_HANDLE);
    checkVk(vkAllocateCommandBuffers(m_device->handle(), &alloc, &m_buffers.back()), "vkAllocateCommandBuffers");
  }
  begin();
}

void CommandContext::submit(VkFence fence) {
  m_recording = false;
  checkVk(vkEndCommandBuffer(buffer()), "vkEndCommandBuffer");
  queueSubmit(fence);
}

void CommandContext::queueSubmit(VkFence fence) {
  m_device->requireUsable();
  VkCommandBuffer cmd = buffer();
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  const std::optional<VkResult> injected = detail::takeInjectedFault(FaultSite::QueueSubmit);
  VkResult result = VK_SUCCESS;
  if (injected) {
    result = *injected;
  } else {
    std::lock_guard queue(m_device->queueMutex());
    result = vkQueueSubmit(m_device->queue(), 1, &submit, fence);
  }
  if (result != VK_SUCCESS) {
    const char* call = "submitting work (vkQueueSubmit)";
    if (result == VK_ERROR_DEVICE_LOST) m_device->markLost(call);
    waitForParts();  // parts submitted before may still run: finished before the buffers are reset
    throwVulkanError(call, result);
  }
}

void CommandContext::submitAndWait() {
  VkFence fence = m_fence.get();
  checkVk(vkResetFences(m_device->handle(), 1, &fence), "vkResetFences");
  submit(fence);
  wait();
}

void CommandContext::wait() {
  VkDevice dev = m_device->handle();
  VkFence fence = m_fence.get();
  const auto waiting = std::chrono::steady_clock::now();
  const VkResult result = vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);
  m_device->addWaitedNs(static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - waiting).count()));
  if (result == VK_SUCCESS) m_partsPending = false;
  if (result != VK_SUCCESS) {
    const char* call = "waiting for work (vkWaitForFences)";
    if (result == VK_ERROR_DEVICE_LOST) m_device->markLost(call);
    throwVulkanError(call, result);
  }
}

void CommandContext::waitForParts() noexcept {
  if (!m_partsPending) return;
  std::lock_guard queue(m_device->queueMutex());
  vkQueueWaitIdle(m_device->queue());
  m_partsPending = false;
}

void CommandContext::reset() noexcept {
  waitForParts();  // a batch dropped after some of it was submitted
  if (m_recording) vkEndCommandBuffer(buffer());
  m_recording = false;
  for (std::size_t i = 0; i <= m_current && i < m_buffers.size(); ++i) vkResetCommandBuffer(m_buffers[i], 0);
  m_current = 0;
}

}  // namespace vkattn
