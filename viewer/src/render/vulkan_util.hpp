// Small Vulkan helpers the viewer's drawing shares: the one-colour-attachment render pass (the
// window's and the offscreen target's, compatible so that one ImGui pipeline draws into both)
// and an image with its own memory.
#pragma once

#include <vulkan/vulkan.h>

#include "render/vulkan_handles.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/submit_once.hpp"

namespace vkattn::viewer {

// A render pass that clears one colour attachment of `format` and leaves it in `finalLayout`.
RenderPassHandle createColorRenderPass(VkDevice device, VkFormat format, VkImageLayout finalLayout);

// A 2-D colour image in device memory with a view; move-only.
class ColorImage {
 public:
  ColorImage(const Device& device, VkFormat format, uint32_t width, uint32_t height, VkImageUsageFlags usage);

  VkImage image() const noexcept { return m_image.get(); }
  VkImageView view() const noexcept { return m_view.get(); }

 private:
  // Freed in reverse: the view, the image, then its memory.
  MemoryHandle m_memory;
  ImageHandle m_image;
  ImageViewHandle m_view;
};

// True for the BGRA formats, whose pixels need red and blue swapped for a PNG.
bool isBgr(VkFormat format);

}  // namespace vkattn::viewer
