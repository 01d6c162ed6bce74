#include "render/imgui_vulkan.hpp"

#include <backends/imgui_impl_vulkan.h>

#include <algorithm>
#include <mutex>

#include "render/vulkan_util.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/vulkan_error.hpp"

namespace vkattn::viewer {
namespace {

// The backend reports every VkResult here; failures become the runtime's exception.
void checkBackendResult(VkResult result) {
  if (result < 0) throw VulkanError("Dear ImGui Vulkan backend", result);
}

}  // namespace

ImGuiVulkan::ImGuiVulkan(const Context& ctx, VkRenderPass renderPass, uint32_t imageCount)
    : m_ctx(ctx),
      m_renderPass(renderPass),
      m_imageCount(std::max<uint32_t>(imageCount, 2)),
      m_binImages(ctx, renderPass, m_imageCount) {
  // The backend needs one combined image sampler set: the font texture.
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 4};
  VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  info.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
  info.maxSets = 4;
  info.poolSizeCount = 1;
  info.pPoolSizes = &size;
  VkDevice dev = ctx.device().handle();
  checkVk(vkCreateDescriptorPool(dev, &info, nullptr, m_pool.receive(dev)), "vkCreateDescriptorPool");
  init();
}

ImGuiVulkan::~ImGuiVulkan() {
  {
    std::lock_guard queue(m_ctx.device().queueMutex());
    vkDeviceWaitIdle(m_ctx.device().handle());
  }
  shutdown();
}

void ImGuiVulkan::init() {
  const Device& device = m_ctx.device();
  ImGui_ImplVulkan_InitInfo info{};
  info.Instance = m_ctx.instance().handle();
  info.PhysicalDevice = device.physical();
  info.Device = device.handle();
  info.QueueFamily = device.queueFamily();
  info.Queue = device.queue();
  info.PipelineCache = device.pipelineCache();
  info.DescriptorPool = m_pool.get();
  info.Subpass = 0;
  info.MinImageCount = m_imageCount;
  info.ImageCount = m_imageCount;
  info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
  info.CheckVkResultFn = &checkBackendResult;
  if (!ImGui_ImplVulkan_Init(&info, m_renderPass)) throw Error("Dear ImGui's Vulkan backend failed to initialise");
  m_initialised = true;
}

void ImGuiVulkan::shutdown() noexcept {
  if (!m_initialised) return;
  ImGui_ImplVulkan_Shutdown();
  m_initialised = false;
}

void ImGuiVulkan::uploadFonts() {
  VkDevice dev = m_ctx.device().handle();
  {
    std::lock_guard queue(m_ctx.device().queueMutex());
    checkVk(vkDeviceWaitIdle(dev), "vkDeviceWaitIdle");
  }
  if (m_fontsUploaded) {
    // A fresh backend: frees the old font texture and its descriptor set with it.
    shutdown();
    checkVk(vkResetDescriptorPool(dev, m_pool.get(), 0), "vkResetDescriptorPool");
    init();
  }
  submitOnce(m_ctx.device(), [](VkCommandBuffer cmd) {
    if (!ImGui_ImplVulkan_CreateFontsTexture(cmd)) throw Error("Dear ImGui could not create its font texture");
  });
  ImGui_ImplVulkan_DestroyFontUploadObjects();
  m_fontsUploaded = true;
}

void ImGuiVulkan::newFrame() {
  ImGui_ImplVulkan_NewFrame();
}

void ImGuiVulkan::render(ImDrawData* data, VkCommandBuffer cmd, BinImages& images) {
  m_binImages.upload(images);
  // The painter lives only while this draw data is recorded.
  struct PainterScope {
    BinImages& images;
    ~PainterScope() { images.setPainter(nullptr); }
  } scope{images};
  images.setPainter(
      [&](const BinImage& image, const ImDrawCmd& drawCmd) { m_binImages.paint(cmd, *data, image, drawCmd); });
  ImGui_ImplVulkan_RenderDrawData(data, cmd);
}

}  // namespace vkattn::viewer
