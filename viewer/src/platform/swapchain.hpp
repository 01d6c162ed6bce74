// The window's swapchain on the vkattn context's device and queue: surface, swapchain images
// with their framebuffers, and the frame loop's synchronisation. One frame is in flight at a
// time: the viewer redraws only on input, and ImGui's per-frame buffers and the compute work
// that shares the queue then never race a frame still on the GPU.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "platform/window.hpp"
#include "vkattn/core/context.hpp"

namespace vkattn::viewer {

class Swapchain {
 public:
  Swapchain(const Context& ctx, const Window& window);
  ~Swapchain();
  Swapchain(const Swapchain&) = delete;
  Swapchain& operator=(const Swapchain&) = delete;

  VkFormat format() const noexcept { return m_format.format; }
  VkRenderPass renderPass() const noexcept { return m_renderPass; }
  uint32_t imageCount() const noexcept { return static_cast<uint32_t>(m_images.size()); }

  // Acquires an image, records `draw` inside the render pass (cleared to `clear`), submits and
  // presents. Returns false when nothing was drawn: the window is minimised, or the swapchain
  // was out of date and has been rebuilt for the next call.
  bool drawFrame(const std::function<void(VkCommandBuffer)>& draw, const VkClearColorValue& clear);

 private:
  void create();
  void destroyImages() noexcept;
  void release() noexcept;

  const Context& m_ctx;
  const Window& m_window;
  VkSurfaceKHR m_surface = VK_NULL_HANDLE;
  VkSurfaceFormatKHR m_format{};
  VkRenderPass m_renderPass = VK_NULL_HANDLE;
  VkSwapchainKHR m_swapchain = VK_NULL_HANDLE;
  VkExtent2D m_extent{};
  std::vector<VkImage> m_images;
  std::vector<VkImageView> m_views;
  std::vector<VkFramebuffer> m_framebuffers;
  std::vector<VkSemaphore> m_rendered;  // per image: the present waits for its frame's draw
  VkSemaphore m_acquired = VK_NULL_HANDLE;
  VkFence m_frameDone = VK_NULL_HANDLE;
  VkCommandPool m_pool = VK_NULL_HANDLE;
  VkCommandBuffer m_cmd = VK_NULL_HANDLE;
  bool m_outOfDate = false;
};

}  // namespace vkattn::viewer
