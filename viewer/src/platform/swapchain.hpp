// The window's swapchain on the vkattn context's device and queue: surface, swapchain images
// with their framebuffers, and the frame loop's synchronisation. One frame is in flight at a
// time: the viewer redraws only on input, and ImGui's per-frame buffers and the compute work
// that shares the queue then never race a frame still on the GPU.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "platform/window.hpp"
#include "render/vulkan_handles.hpp"
#include "vkattn/core/context.hpp"

namespace vkattn::viewer {

class Swapchain {
 public:
  Swapchain(const Context& ctx, const Window& window);
  Swapchain(const Swapchain&) = delete;
  Swapchain& operator=(const Swapchain&) = delete;

  VkFormat format() const noexcept { return m_format.format; }
  VkRenderPass renderPass() const noexcept { return m_renderPass.get(); }
  uint32_t imageCount() const noexcept { return static_cast<uint32_t>(m_images.size()); }

  // Acquires an image, records `draw` inside the render pass (cleared to `clear`), submits and
  // presents. Returns false when nothing was drawn: the window is minimised, or the swapchain
  // was out of date and has been rebuilt for the next call.
  bool drawFrame(const std::function<void(VkCommandBuffer)>& draw, const VkClearColorValue& clear);

 private:
  // Waits for the device, so that nothing freed below is still in use.
  struct IdleOnDestruction {
    const Device& owner;
    ~IdleOnDestruction() {
      std::lock_guard queue(owner.queueMutex());
      vkDeviceWaitIdle(owner.handle());
    }
  };

  void create();

  const Context& m_ctx;
  const Window& m_window;
  // Members are freed in reverse order: the frame's objects, then the per-image ones, the
  // swapchain and its render pass, the surface last.
  SurfaceHandle m_surface;
  VkSurfaceFormatKHR m_format{};
  RenderPassHandle m_renderPass;
  SwapchainHandle m_swapchain;
  VkExtent2D m_extent{};
  std::vector<VkImage> m_images;  // the swapchain's own
  std::vector<ImageViewHandle> m_views;
  std::vector<FramebufferHandle> m_framebuffers;
  std::vector<SemaphoreHandle> m_rendered;  // per image: the present waits for its frame's draw
  SemaphoreHandle m_acquired;
  FenceHandle m_frameDone;
  CommandPoolHandle m_pool;
  VkCommandBuffer m_cmd = VK_NULL_HANDLE;  // freed with the pool
  bool m_outOfDate = false;
  IdleOnDestruction m_idle;  // destroyed first
};

}  // namespace vkattn::viewer
