// Draws the bin images of render/bin_images.hpp: a graphics pipeline (bin_image.vert and
// bin_image.frag) for one render pass, and a ring of host-visible word buffers, one per frame in
// flight, advanced as ImGui's Vulkan backend advances its vertex buffers (it makes the same
// assumption: a slot comes round again only after its frame has finished).
#pragma once

#include <imgui.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "render/bin_images.hpp"
#include "vkattn/core/buffer.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/handle.hpp"

namespace vkattn::viewer {

class BinImageRenderer {
 public:
  BinImageRenderer(const Context& ctx, VkRenderPass renderPass, uint32_t slots);

  // Copies the images' words into the next slot (grown when needed); before recording a draw list
  // that holds them.
  void upload(const BinImages& images);
  // Records `image` into `cmd` under the clip rect of `drawCmd`, for `data`'s framebuffer.
  void paint(VkCommandBuffer cmd, const ImDrawData& data, const BinImage& image, const ImDrawCmd& drawCmd) const;

 private:
  struct Slot {
    Buffer words;
    VkDescriptorSet set = VK_NULL_HANDLE;  // freed with the pool
  };

  const Context& m_ctx;
  DescriptorSetLayoutHandle m_setLayout;
  DescriptorPoolHandle m_pool;
  PipelineLayoutHandle m_layout;
  PipelineHandle m_pipeline;
  std::vector<Slot> m_slots;
  uint32_t m_next = 0;
  const Slot* m_current = nullptr;
};

}  // namespace vkattn::viewer
