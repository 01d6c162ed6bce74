#include "platform/swapchain.hpp"

#include <algorithm>

#include "render/vulkan_util.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/error.hpp"

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

Swapchain::Swapchain(const Context& ctx, const Window& window) : m_ctx(ctx), m_window(window) {
  const Device& device = ctx.device();
  VkDevice dev = device.handle();
  try {
    checkVk(glfwCreateWindowSurface(ctx.instance().handle(), window.handle(), nullptr, &m_surface),
            "glfwCreateWindowSurface");
    VkBool32 supported = VK_FALSE;
    checkVk(vkGetPhysicalDeviceSurfaceSupportKHR(device.physical(), device.queueFamily(), m_surface, &supported),
            "vkGetPhysicalDeviceSurfaceSupportKHR");
    if (!supported) throw Unsupported("the vkattn queue of " + device.info().name + " cannot present to this window");
    m_format = chooseFormat(device.physical(), m_surface);
    m_renderPass = createColorRenderPass(dev, m_format.format, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);

    VkSemaphoreCreateInfo semaphoreInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    checkVk(vkCreateSemaphore(dev, &semaphoreInfo, nullptr, &m_acquired), "vkCreateSemaphore");
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    fenceInfo.flags = VK_FENCE_CREATE_SIGNALED_BIT;  // the first frame has nothing to wait for
    checkVk(vkCreateFence(dev, &fenceInfo, nullptr, &m_frameDone), "vkCreateFence");
    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    poolInfo.queueFamilyIndex = device.queueFamily();
    checkVk(vkCreateCommandPool(dev, &poolInfo, nullptr, &m_pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = m_pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    checkVk(vkAllocateCommandBuffers(dev, &alloc, &m_cmd), "vkAllocateCommandBuffers");
    create();
  } catch (...) {
    release();
    throw;
  }
}

Swapchain::~Swapchain() {
  release();
}

void Swapchain::release() noexcept {
  VkDevice dev = m_ctx.device().handle();
  vkDeviceWaitIdle(dev);
  destroyImages();
  if (m_swapchain) vkDestroySwapchainKHR(dev, m_swapchain, nullptr);
  if (m_pool) vkDestroyCommandPool(dev, m_pool, nullptr);
  if (m_frameDone) vkDestroyFence(dev, m_frameDone, nullptr);
  if (m_acquired) vkDestroySemaphore(dev, m_acquired, nullptr);
  if (m_renderPass) vkDestroyRenderPass(dev, m_renderPass, nullptr);
  if (m_surface) vkDestroySurfaceKHR(m_ctx.instance().handle(), m_surface, nullptr);
  m_swapchain = VK_NULL_HANDLE;
  m_pool = VK_NULL_HANDLE;
  m_frameDone = VK_NULL_HANDLE;
  m_acquired = VK_NULL_HANDLE;
  m_renderPass = VK_NULL_HANDLE;
  m_surface = VK_NULL_HANDLE;
}

void Swapchain::destroyImages() noexcept {
  VkDevice dev = m_ctx.device().handle();
  for (VkFramebuffer f : m_framebuffers) vkDestroyFramebuffer(dev, f, nullptr);
  for (VkImageView v : m_views) vkDestroyImageView(dev, v, nullptr);
  for (VkSemaphore s : m_rendered) vkDestroySemaphore(dev, s, nullptr);
  m_framebuffers.clear();
  m_views.clear();
  m_rendered.clear();
  m_images.clear();
}

void Swapchain::create() {
  const Device& device = m_ctx.device();
  VkDevice dev = device.handle();
  checkVk(vkDeviceWaitIdle(dev), "vkDeviceWaitIdle");
  destroyImages();

  VkSurfaceCapabilitiesKHR caps;
  checkVk(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(device.physical(), m_surface, &caps),
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
  info.surface = m_surface;
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
  info.oldSwapchain = m_swapchain;
  VkSwapchainKHR created = VK_NULL_HANDLE;
  checkVk(vkCreateSwapchainKHR(dev, &info, nullptr, &created), "vkCreateSwapchainKHR");
  if (m_swapchain) vkDestroySwapchainKHR(dev, m_swapchain, nullptr);
  m_swapchain = created;

  checkVk(vkGetSwapchainImagesKHR(dev, m_swapchain, &count, nullptr), "vkGetSwapchainImagesKHR");
  m_images.resize(count);
  checkVk(vkGetSwapchainImagesKHR(dev, m_swapchain, &count, m_images.data()), "vkGetSwapchainImagesKHR");
  for (VkImage image : m_images) {
    VkImageViewCreateInfo viewInfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    viewInfo.image = image;
    viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
    viewInfo.format = m_format.format;
    viewInfo.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageView view = VK_NULL_HANDLE;
    checkVk(vkCreateImageView(dev, &viewInfo, nullptr, &view), "vkCreateImageView");
    m_views.push_back(view);
    VkFramebufferCreateInfo fbInfo{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fbInfo.renderPass = m_renderPass;
    fbInfo.attachmentCount = 1;
    fbInfo.pAttachments = &view;
    fbInfo.width = m_extent.width;
    fbInfo.height = m_extent.height;
    fbInfo.layers = 1;
    VkFramebuffer framebuffer = VK_NULL_HANDLE;
    checkVk(vkCreateFramebuffer(dev, &fbInfo, nullptr, &framebuffer), "vkCreateFramebuffer");
    m_framebuffers.push_back(framebuffer);
    VkSemaphoreCreateInfo semaphoreInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VkSemaphore rendered = VK_NULL_HANDLE;
    checkVk(vkCreateSemaphore(dev, &semaphoreInfo, nullptr, &rendered), "vkCreateSemaphore");
    m_rendered.push_back(rendered);
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

  checkVk(vkWaitForFences(dev, 1, &m_frameDone, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  uint32_t index = 0;
  VkResult acquired = vkAcquireNextImageKHR(dev, m_swapchain, UINT64_MAX, m_acquired, VK_NULL_HANDLE, &index);
  if (acquired == VK_ERROR_OUT_OF_DATE_KHR) {
    m_outOfDate = true;
    return false;
  }
  if (acquired != VK_SUBOPTIMAL_KHR) checkVk(acquired, "vkAcquireNextImageKHR");
  checkVk(vkResetFences(dev, 1, &m_frameDone), "vkResetFences");

  checkVk(vkResetCommandBuffer(m_cmd, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  checkVk(vkBeginCommandBuffer(m_cmd, &begin), "vkBeginCommandBuffer");
  VkClearValue clearValue{};
  clearValue.color = clear;
  VkRenderPassBeginInfo pass{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  pass.renderPass = m_renderPass;
  pass.framebuffer = m_framebuffers[index];
  pass.renderArea.extent = m_extent;
  pass.clearValueCount = 1;
  pass.pClearValues = &clearValue;
  vkCmdBeginRenderPass(m_cmd, &pass, VK_SUBPASS_CONTENTS_INLINE);
  draw(m_cmd);
  vkCmdEndRenderPass(m_cmd);
  checkVk(vkEndCommandBuffer(m_cmd), "vkEndCommandBuffer");

  // Colour writes wait for the acquired image; the present waits for the writes.
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &m_acquired;
  submit.pWaitDstStageMask = &waitStage;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &m_cmd;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &m_rendered[index];
  checkVk(vkQueueSubmit(m_ctx.device().queue(), 1, &submit, m_frameDone), "vkQueueSubmit");

  VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
  present.waitSemaphoreCount = 1;
  present.pWaitSemaphores = &m_rendered[index];
  present.swapchainCount = 1;
  present.pSwapchains = &m_swapchain;
  present.pImageIndices = &index;
  const VkResult presented = vkQueuePresentKHR(m_ctx.device().queue(), &present);
  if (presented == VK_ERROR_OUT_OF_DATE_KHR || presented == VK_SUBOPTIMAL_KHR)
    m_outOfDate = true;
  else
    checkVk(presented, "vkQueuePresentKHR");
  return true;
}

}  // namespace vkattn::viewer
