// Dear ImGui's Vulkan renderer on the vkattn context's device and queue, for one render pass (the
// window's, or the offscreen target's; compatible passes share it). Owns the descriptor pool the
// backend allocates from. Uploading a rebuilt font atlas re-creates the backend, because 1.86's
// ImGui_ImplVulkan_CreateFontsTexture makes a new texture without freeing the old one. Bin images
// (heatmaps, render/bin_images.hpp) in the draw lists are drawn by a BinImageRenderer of its own.
#pragma once

#include <imgui.h>
#include <vulkan/vulkan.h>

#include <cstdint>

#include "render/bin_image_renderer.hpp"
#include "render/bin_images.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/handle.hpp"

namespace vkattn::viewer {

class ImGuiVulkan {
 public:
  // Needs a current ImGui context. `imageCount`: swapchain images (at least 2 are assumed).
  ImGuiVulkan(const Context& ctx, VkRenderPass renderPass, uint32_t imageCount);
  ~ImGuiVulkan();
  ImGuiVulkan(const ImGuiVulkan&) = delete;
  ImGuiVulkan& operator=(const ImGuiVulkan&) = delete;

  // Uploads io.Fonts (built by FontAtlas) as the font texture; waits for the device first.
  void uploadFonts();
  // Before ImGui::NewFrame.
  void newFrame();
  // Records the draw data into `cmd`, inside a render pass compatible with the one given; `images`
  // holds the bin images its draw lists refer to.
  void render(ImDrawData* data, VkCommandBuffer cmd, BinImages& images);

 private:
  void init();
  void shutdown() noexcept;

  const Context& m_ctx;
  VkRenderPass m_renderPass;
  uint32_t m_imageCount;
  DescriptorPoolHandle m_pool;
  bool m_initialised = false;
  bool m_fontsUploaded = false;
  BinImageRenderer m_binImages;
};

}  // namespace vkattn::viewer
