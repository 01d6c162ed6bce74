// Compute pipelines built from the embedded SPIR-V registry, specialised with typed constants,
// cached per (shader, constants) in a PipelineLibrary that lives as long as its Device.
#pragma once

#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

namespace vkattn {

class Device;

// Specialization constants in id order 0, 1, 2, ... (the order `add` is called).
class SpecConstants {
 public:
  SpecConstants& add(uint32_t value) {
    m_words.push_back(value);
    return *this;
  }
  SpecConstants& add(int32_t value) { return add(static_cast<uint32_t>(value)); }
  SpecConstants& add(bool value) { return add(static_cast<uint32_t>(value ? 1 : 0)); }
  SpecConstants& add(float value) { return add(std::bit_cast<uint32_t>(value)); }
  const std::vector<uint32_t>& words() const noexcept { return m_words; }

 private:
  std::vector<uint32_t> m_words;
};

struct PipelineDesc {
  std::string shader;          // id in the SPIR-V registry
  uint32_t bindings = 0;       // storage buffers at set 0, bindings 0..n-1
  uint32_t pushConstantBytes = 0;
  SpecConstants constants;
};

class Pipeline {
 public:
  Pipeline(const Device& device, const PipelineDesc& desc);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  VkPipeline handle() const noexcept { return m_pipeline; }
  VkPipelineLayout layout() const noexcept { return m_layout; }
  VkDescriptorSetLayout setLayout() const noexcept { return m_setLayout; }
  uint32_t bindingCount() const noexcept { return m_bindings; }
  uint32_t pushConstantBytes() const noexcept { return m_pushBytes; }
  const std::string& name() const noexcept { return m_name; }

 private:
  const Device& m_device;
  std::string m_name;
  uint32_t m_bindings = 0;
  uint32_t m_pushBytes = 0;
  VkDescriptorSetLayout m_setLayout = VK_NULL_HANDLE;
  VkPipelineLayout m_layout = VK_NULL_HANDLE;
  VkPipeline m_pipeline = VK_NULL_HANDLE;
};

class PipelineLibrary {
 public:
  explicit PipelineLibrary(const Device& device) : m_device(device) {}
  // Returns the pipeline for `desc`, creating it on first use.
  const Pipeline& get(const PipelineDesc& desc);
  std::size_t size() const noexcept { return m_pipelines.size(); }

 private:
  const Device& m_device;
  std::map<std::pair<std::string, std::vector<uint32_t>>, std::unique_ptr<Pipeline>> m_pipelines;
};

// The SPIR-V of one registry entry; throws Error when `shader` is unknown.
std::span<const uint32_t> shaderCode(const std::string& shader);
// Every shader id in the registry.
std::vector<std::string> shaderNames();

}  // namespace vkattn
