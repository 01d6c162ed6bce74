#include "render/offscreen.hpp"

#include <utility>

#include "vkattn/core/device.hpp"
#include "vkattn/core/vulkan_error.hpp"

namespace vkattn::viewer {

OffscreenTarget::OffscreenTarget(const Context& ctx, VkFormat format, uint32_t width, uint32_t height)
    : m_ctx(ctx),
      m_format(format),
      m_width(width),
      m_height(height),
      m_renderPass(createColorRenderPass(ctx.device().handle(), format, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)),
      m_image(ctx.device(), format, width, height,
              VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT) {
  VkDevice dev = ctx.device().handle();
  VkImageView view = m_image.view();
  VkFramebufferCreateInfo info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  info.renderPass = m_renderPass.get();
  info.attachmentCount = 1;
  info.pAttachments = &view;
  info.width = width;
  info.height = height;
  info.layers = 1;
  checkVk(vkCreateFramebuffer(dev, &info, nullptr, m_framebuffer.receive(dev)), "vkCreateFramebuffer");
  m_readback = Buffer(ctx.device(), static_cast<std::size_t>(width) * height * 4, BufferUsage::Staging);
}

std::vector<uint8_t> OffscreenTarget::render(const std::function<void(VkCommandBuffer)>& draw,
                                             const VkClearColorValue& clear) {
  submitOnce(m_ctx.device(), [&](VkCommandBuffer cmd) {
    VkClearValue clearValue{};
    clearValue.color = clear;
    VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    begin.renderPass = m_renderPass.get();
    begin.framebuffer = m_framebuffer.get();
    begin.renderArea.extent = {m_width, m_height};
    begin.clearValueCount = 1;
    begin.pClearValues = &clearValue;
    vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
    draw(cmd);
    vkCmdEndRenderPass(cmd);

    // The copy reads what the render pass wrote (already in TRANSFER_SRC_OPTIMAL, its final layout).
    VkMemoryBarrier toCopy{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    toCopy.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    toCopy.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
                         &toCopy, 0, nullptr, 0, nullptr);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {m_width, m_height, 1};
    vkCmdCopyImageToBuffer(cmd, m_image.image(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, m_readback.handle(), 1, &region);
    // The host reads the buffer after the fence.
    VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, nullptr, 0,
                         nullptr);
  });
  std::vector<uint8_t> pixels(static_cast<std::size_t>(m_width) * m_height * 4);
  m_readback.read(pixels.data(), pixels.size());
  if (isBgr(m_format))
    for (std::size_t i = 0; i < pixels.size(); i += 4) std::swap(pixels[i], pixels[i + 2]);
  for (std::size_t i = 3; i < pixels.size(); i += 4) pixels[i] = 255;  // a PNG of the view is opaque
  return pixels;
}

}  // namespace vkattn::viewer
