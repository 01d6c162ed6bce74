#include "platform/swapchain.hpp"

#include <algorithm>
#include <utility>

#include "render/vulkan_util.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/vulkan_error.hpp"

namespace vkattn::viewer {
namespace {

// UNORM first: ImGui's colours are authored for a linear store, an sRGB target would wash them out.
VkSurfaceFormatKHR chooseFormat(VkPhysicalDevice physical, VkSurfaceKHR surface) {
  uint32_t count = 0;
  checkVk(vkGetPhysicalDeviceSurfaceFormatsKHR(physical, surface, &count, nullptr),
          "vkGetPhysicalDeviceSurfaceFormatsKHR");
  std::vector<VkSurfaceFormatKHR> formats(count);
  checkVk(vkGetPhysicalDeviceSurfaceFormatsKHR(physical, surface, &count, formats.data()),
          "vkGetPhysicalDeviceSurfaceFormatsKHR");
  if (formats.empty()) throw Unsupported("the window surface offers no formats");
  for (VkFormat wanted : {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM})
    for (const auto& f : formats)
      if (f.format == wanted && f.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) return f;
  return formats.front();
}

}  // namespace

Swapchain::Swapchain(const Context& ctx, const Window& window) : m_ctx(ctx), m_window(window), m_idle{ctx.device()} {
  const Device& device = ctx.device();
  VkDevice dev = device.handle();
  checkVk(glfwCreateWindowSurface(ctx.instance().handle(), window.handle(), nullptr,
                                  m_surface.receive(ctx.instance().handle())),
          "glfwCreateWindowSurface");
  VkBool32 supported = VK_FALSE;
  checkVk(vkGetPhysicalDeviceSurfaceSupportKHR(device.physical(), device.queueFamily(), m_surface.get(), &supported),
          "vkGetPhysicalDeviceSurfaceSupportKHR");
  if (!supported) throw Unsupported("the vkattn queue of " + device.info().name + " cannot present to this window");
  m_format = chooseFormat(device.physical(), m_surface.get());
  m_renderPass = createColorRenderPass(dev, m_format.format, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);

  VkSemaphoreCreateInfo semaphoreInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  checkVk(vkCreateSemaphore(dev, &semaphoreInfo, nullptr, m_acquired.receive(dev)), "vkCreateSemaphore");
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  fenceInfo.flags = VK_FENCE_CREATE_SIGNALED_BIT;  // the first frame has nothing to wait for
  checkVk(vkCreateFence(dev, &fenceInfo, nullptr, m_frameDone.receive(dev)), "vkCreateFence");
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = device.queueFamily();
  checkVk(vkCreateCommandPool(dev, &poolInfo, nullptr, m_pool.receive(dev)), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = m_pool.get();
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  checkVk(vkAllocateCommandBuffers(dev, &alloc, &m_cmd), "vkAllocateCommandBuffers");
  create();
}

void Swapchain::create() {
  const Device& device = m_ctx.device();
  VkDevice dev = device.handle();
  {
    std::lock_guard queue(device.queueMutex());
    checkVk(vkDeviceWaitIdle(dev), "vkDeviceWaitIdle");
  }
  m_framebuffers.clear();
  m_views.clear();
  m_rendered.clear();
  m_images.clear();

  VkSurfaceCapabilitiesKHR caps;
  checkVk(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(device.physical(), m_surface.get(), &caps),
          "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
  int width = 0, height = 0;
  glfwGetFramebufferSize(m_window.handle(), &width, &height);
  m_extent = caps.currentExtent;
  if (m_extent.width == UINT32_MAX) {
    m_extent.width = std::clamp(static_cast<uint32_t>(width), caps.minImageExtent.width, caps.maxImageExtent.width);
    m_extent.height = std::clamp(static_cast<uint32_t>(height), caps.minImageExtent.height, caps.maxImageExtent.height);
  }
  uint32_t count = std::max<uint32_t>(caps.minImageCount + 1, 2);
  if (caps.maxImageCount) count = std::min(count, caps.maxImageCount);

  VkSwapchainCreateInfoKHR info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  info.surface = m_surface.get();
  info.minImageCount = count;
  info.imageFormat = m_format.format;
  info.imageColorSpace = m_format.colorSpace;
  info.imageExtent = m_extent;
  info.imageArrayLayers = 1;
  info.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.preTransform = caps.currentTransform;
  info.compositeAlpha =
      (caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR)
          ? VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR
          : static_cast<VkCompositeAlphaFlagBitsKHR>(caps.supportedCompositeAlpha & -caps.supportedCompositeAlpha);
  info.presentMode = VK_PRESENT_MODE_FIFO_KHR;  // always available; paces frames to the display
  info.clipped = VK_TRUE;
  info.oldSwapchain = m_swapchain.get();
  SwapchainHandle created;
  checkVk(vkCreateSwapchainKHR(dev, &info, nullptr, created.receive(dev)), "vkCreateSwapchainKHR");
  m_swapchain = std::move(created);  // frees the old one

  checkVk(vkGetSwapchainImagesKHR(dev, m_swapchain.get(), &count, nullptr), "vkGetSwapchainImagesKHR");
  m_images.resize(count);
  checkVk(vkGetSwapchainImagesKHR(dev, m_swapchain.get(), &count, m_images.data()), "vkGetSwapchainImagesKHR");
  for (VkImage image : m_images) {
    VkImageViewCreateInfo viewInfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    viewInfo.image = image;
    viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
    viewInfo.format = m_format.format;
    viewInfo.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    ImageViewHandle& view = m_views.emplace_back();
    checkVk(vkCreateImageView(dev, &viewInfo, nullptr, view.receive(dev)), "vkCreateImageView");
    const VkImageView attachment = view.get();
    VkFramebufferCreateInfo fbInfo{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fbInfo.renderPass = m_renderPass.get();
    fbInfo.attachmentCount = 1;
    fbInfo.pAttachments = &attachment;
    fbInfo.width = m_extent.width;
    fbInfo.height = m_extent.height;
    fbInfo.layers = 1;
    checkVk(vkCreateFramebuffer(dev, &fbInfo, nullptr, m_framebuffers.emplace_back().receive(dev)),
            "vkCreateFramebuffer");
    VkSemaphoreCreateInfo semaphoreInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    checkVk(vkCreateSemaphore(dev, &semaphoreInfo, nullptr, m_rendered.emplace_back().receive(dev)),
            "vkCreateSemaphore");
  }
  m_outOfDate = false;
}

bool Swapchain::drawFrame(const std::function<void(VkCommandBuffer)>& draw, const VkClearColorValue& clear) {
  VkDevice dev = m_ctx.device().handle();
  int width = 0, height = 0;
  glfwGetFramebufferSize(m_window.handle(), &width, &height);
  if (width == 0 || height == 0) return false;  // minimised
  if (m_outOfDate || static_cast<uint32_t>(width) != m_extent.width || static_cast<uint32_t>(height) != m_extent.height)
    create();

  const VkFence frameDone = m_frameDone.get();
  checkVk(vkWaitForFences(dev, 1, &frameDone, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  uint32_t index = 0;
  VkResult acquired =
      vkAcquireNextImageKHR(dev, m_swapchain.get(), UINT64_MAX, m_acquired.get(), VK_NULL_HANDLE, &index);
  if (acquired == VK_ERROR_OUT_OF_DATE_KHR) {
    m_outOfDate = true;
    return false;
  }
  if (acquired != VK_SUBOPTIMAL_KHR) checkVk(acquired, "vkAcquireNextImageKHR");
  checkVk(vkResetFences(dev, 1, &frameDone), "vkResetFences");

  checkVk(vkResetCommandBuffer(m_cmd, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  checkVk(vkBeginCommandBuffer(m_cmd, &begin), "vkBeginCommandBuffer");
  VkClearValue clearValue{};
  clearValue.color = clear;
  VkRenderPassBeginInfo pass{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  pass.renderPass = m_renderPass.get();
  pass.framebuffer = m_framebuffers[index].get();
  pass.renderArea.extent = m_extent;
  pass.clearValueCount = 1;
  pass.pClearValues = &clearValue;
  vkCmdBeginRenderPass(m_cmd, &pass, VK_SUBPASS_CONTENTS_INLINE);
  draw(m_cmd);
  vkCmdEndRenderPass(m_cmd);
  checkVk(vkEndCommandBuffer(m_cmd), "vkEndCommandBuffer");

  // Colour writes wait for the acquired image; the present waits for the writes.
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  const VkSemaphore acquiredSemaphore = m_acquired.get(), renderedSemaphore = m_rendered[index].get();
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &acquiredSemaphore;
  submit.pWaitDstStageMask = &waitStage;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &m_cmd;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &renderedSemaphore;
  // The queue is shared with the source's worker context (one device): submit and present under its lock.
  std::lock_guard queue(m_ctx.device().queueMutex());
  checkVk(vkQueueSubmit(m_ctx.device().queue(), 1, &submit, frameDone), "vkQueueSubmit");

  VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
  present.waitSemaphoreCount = 1;
  present.pWaitSemaphores = &renderedSemaphore;
  present.swapchainCount = 1;
  const VkSwapchainKHR swapchain = m_swapchain.get();
  present.pSwapchains = &swapchain;
  present.pImageIndices = &index;
  const VkResult presented = vkQueuePresentKHR(m_ctx.device().queue(), &present);
  if (presented == VK_ERROR_OUT_OF_DATE_KHR || presented == VK_SUBOPTIMAL_KHR)
    m_outOfDate = true;
  else
    checkVk(presented, "vkQueuePresentKHR");
  return true;
}

}  // namespace vkattn::viewer
