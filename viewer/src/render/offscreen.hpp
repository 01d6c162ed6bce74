// An offscreen colour target the size of an image file: the headless screenshot and the PNG
// export render into it with the same ImGui pipeline as the window (its render pass is
// compatible: same format, one sample), then read it back.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "render/vulkan_util.hpp"
#include "vkattn/core/buffer.hpp"
#include "vkattn/core/context.hpp"

namespace vkattn::viewer {

class OffscreenTarget {
 public:
  OffscreenTarget(const Context& ctx, VkFormat format, uint32_t width, uint32_t height);

  VkRenderPass renderPass() const noexcept { return m_renderPass.get(); }
  VkFormat format() const noexcept { return m_format; }
  uint32_t width() const noexcept { return m_width; }
  uint32_t height() const noexcept { return m_height; }

  // Clears to `clear`, records `draw` inside the render pass, waits, and returns the pixels as
  // RGBA8 rows, top row first.
  std::vector<uint8_t> render(const std::function<void(VkCommandBuffer)>& draw, const VkClearColorValue& clear);

 private:
  const Context& m_ctx;
  VkFormat m_format;
  uint32_t m_width, m_height;
  RenderPassHandle m_renderPass;
  ColorImage m_image;
  FramebufferHandle m_framebuffer;
  Buffer m_readback;
};

}  // namespace vkattn::viewer
