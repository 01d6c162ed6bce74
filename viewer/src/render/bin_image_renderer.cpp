#include "render/bin_image_renderer.hpp"

#include <bin_image_push.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "spirv/viewer_shaders.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/vulkan_error.hpp"

namespace vkattn::viewer {
namespace {

constexpr VkShaderStageFlags kPushStages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;

ShaderModuleHandle shaderModule(VkDevice dev, std::span<const uint32_t> code) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = code.size_bytes();
  info.pCode = code.data();
  ShaderModuleHandle module;
  checkVk(vkCreateShaderModule(dev, &info, nullptr, module.receive(dev)), "vkCreateShaderModule (bin image)");
  return module;
}

PipelineHandle createPipeline(const Device& device, VkRenderPass renderPass, VkPipelineLayout layout) {
  VkDevice dev = device.handle();
  const ShaderModuleHandle vert = shaderModule(dev, shaders::code("bin_image_vert"));
  const ShaderModuleHandle frag = shaderModule(dev, shaders::code("bin_image_frag"));
  VkPipelineShaderStageCreateInfo stages[2]{};
  stages[0] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
               nullptr,
               0,
               VK_SHADER_STAGE_VERTEX_BIT,
               vert.get(),
               "main",
               nullptr};
  stages[1] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
               nullptr,
               0,
               VK_SHADER_STAGE_FRAGMENT_BIT,
               frag.get(),
               "main",
               nullptr};
  VkPipelineVertexInputStateCreateInfo vertexInput{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
  VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport.viewportCount = 1;
  viewport.scissorCount = 1;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendAttachmentState attachment{};  // opaque: the colours are the cells' own
  attachment.colorWriteMask =
      VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  VkPipelineColorBlendStateCreateInfo blend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blend.attachmentCount = 1;
  blend.pAttachments = &attachment;
  const VkDynamicState dynamicStates[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dynamic{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dynamic.dynamicStateCount = 2;
  dynamic.pDynamicStates = dynamicStates;
  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.stageCount = 2;
  info.pStages = stages;
  info.pVertexInputState = &vertexInput;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewport;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pColorBlendState = &blend;
  info.pDynamicState = &dynamic;
  info.layout = layout;
  info.renderPass = renderPass;
  info.subpass = 0;
  PipelineHandle pipeline;
  checkVk(vkCreateGraphicsPipelines(dev, device.pipelineCache(), 1, &info, nullptr, pipeline.receive(dev)),
          "vkCreateGraphicsPipelines (bin image)");
  return pipeline;
}

}  // namespace

BinImageRenderer::BinImageRenderer(const Context& ctx, VkRenderPass renderPass, uint32_t slots)
    : m_ctx(ctx), m_slots(std::max<uint32_t>(slots, 1)) {
  VkDevice dev = ctx.device().handle();
  VkDescriptorSetLayoutBinding binding{BIN_IMAGE_BINDING_WORDS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                       VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = 1;
  setInfo.pBindings = &binding;
  checkVk(vkCreateDescriptorSetLayout(dev, &setInfo, nullptr, m_setLayout.receive(dev)),
          "vkCreateDescriptorSetLayout (bin image)");

  const auto count = static_cast<uint32_t>(m_slots.size());
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, count};
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = count;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &size;
  checkVk(vkCreateDescriptorPool(dev, &poolInfo, nullptr, m_pool.receive(dev)), "vkCreateDescriptorPool (bin image)");
  std::vector<VkDescriptorSetLayout> layouts(count, m_setLayout.get());
  std::vector<VkDescriptorSet> sets(count);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = m_pool.get();
  alloc.descriptorSetCount = count;
  alloc.pSetLayouts = layouts.data();
  checkVk(vkAllocateDescriptorSets(dev, &alloc, sets.data()), "vkAllocateDescriptorSets (bin image)");
  for (uint32_t i = 0; i < count; ++i) m_slots[i].set = sets[i];

  VkPushConstantRange push{kPushStages, 0, sizeof(pc::BinImageParams)};
  VkDescriptorSetLayout setLayout = m_setLayout.get();
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &setLayout;
  layoutInfo.pushConstantRangeCount = 1;
  layoutInfo.pPushConstantRanges = &push;
  checkVk(vkCreatePipelineLayout(dev, &layoutInfo, nullptr, m_layout.receive(dev)),
          "vkCreatePipelineLayout (bin image)");
  m_pipeline = createPipeline(ctx.device(), renderPass, m_layout.get());
}

void BinImageRenderer::upload(const BinImages& images) {
  Slot& slot = m_slots[m_next];
  m_next = (m_next + 1) % static_cast<uint32_t>(m_slots.size());
  m_current = nullptr;
  const std::span<const uint32_t> words = images.words();
  if (words.empty()) return;
  if (slot.words.size() < words.size_bytes()) {
    // Grown by half again, so that a map zoomed out bit by bit does not reallocate every frame.
    slot.words = Buffer(m_ctx.device(), words.size_bytes() + words.size_bytes() / 2, BufferUsage::HostStorage);
    VkDescriptorBufferInfo info{slot.words.handle(), 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = slot.set;
    write.dstBinding = BIN_IMAGE_BINDING_WORDS;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = &info;
    vkUpdateDescriptorSets(m_ctx.device().handle(), 1, &write, 0, nullptr);
  }
  slot.words.write(words.data(), words.size_bytes());
  m_current = &slot;
}

void BinImageRenderer::paint(VkCommandBuffer cmd, const ImDrawData& data, const BinImage& image,
                             const ImDrawCmd& drawCmd) const {
  if (!m_current) return;  // upload() was not given these images
  const float fbWidth = data.DisplaySize.x * data.FramebufferScale.x;
  const float fbHeight = data.DisplaySize.y * data.FramebufferScale.y;
  if (fbWidth <= 0.0f || fbHeight <= 0.0f) return;
  auto toFramebuffer = [&](ImVec2 p) {
    return ImVec2((p.x - data.DisplayPos.x) * data.FramebufferScale.x,
                  (p.y - data.DisplayPos.y) * data.FramebufferScale.y);
  };
  // The scissor is the draw command's clip rect, as ImGui's backend sets it.
  const ImVec2 clipMin = toFramebuffer(ImVec2(drawCmd.ClipRect.x, drawCmd.ClipRect.y));
  const ImVec2 clipMax = toFramebuffer(ImVec2(drawCmd.ClipRect.z, drawCmd.ClipRect.w));
  const float x0 = std::max(clipMin.x, 0.0f), y0 = std::max(clipMin.y, 0.0f);
  const float x1 = std::min(clipMax.x, fbWidth), y1 = std::min(clipMax.y, fbHeight);
  if (x1 <= x0 || y1 <= y0) return;
  VkRect2D scissor{{static_cast<int32_t>(x0), static_cast<int32_t>(y0)},
                   {static_cast<uint32_t>(x1 - x0), static_cast<uint32_t>(y1 - y0)}};
  VkViewport viewport{0.0f, 0.0f, fbWidth, fbHeight, 0.0f, 1.0f};

  const ImVec2 origin = toFramebuffer(image.origin);
  const ImVec2 end = toFramebuffer(
      ImVec2(image.origin.x + static_cast<float>(image.width), image.origin.y + static_cast<float>(image.height)));
  pc::BinImageParams params{};
  params.left = 2.0f * origin.x / fbWidth - 1.0f;
  params.top = 2.0f * origin.y / fbHeight - 1.0f;
  params.right = 2.0f * end.x / fbWidth - 1.0f;
  params.bottom = 2.0f * end.y / fbHeight - 1.0f;
  params.originX = origin.x;
  params.originY = origin.y;
  params.scaleX = 1.0f / data.FramebufferScale.x;
  params.scaleY = 1.0f / data.FramebufferScale.y;
  params.width = image.width;
  params.height = image.height;
  params.colBinsOffset = image.colBinsOffset;
  params.rowBinsOffset = image.rowBinsOffset;
  params.colorsOffset = image.colorsOffset;
  params.binCols = image.binCols;

  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, m_pipeline.get());
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, m_layout.get(), 0, 1, &m_current->set, 0, nullptr);
  vkCmdPushConstants(cmd, m_layout.get(), kPushStages, 0, sizeof(params), &params);
  vkCmdSetViewport(cmd, 0, 1, &viewport);
  vkCmdSetScissor(cmd, 0, 1, &scissor);
  vkCmdDraw(cmd, 4, 1, 0, 0);
}

}  // namespace vkattn::viewer
