// Compute pipelines built from the embedded SPIR-V registry (or a client's own SPIR-V), specialised
// with typed constants, cached per (shader, constants) in a PipelineLibrary that lives as long as
// its Device.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vkattn/core/handle.hpp"
#include "vkattn/core/spec_constants.hpp"

namespace vkattn {

class Device;

struct PipelineDesc {
  std::string shader;     // id in the SPIR-V registry, or the name of `code`
  uint32_t bindings = 0;  // storage buffers at set 0, bindings 0..n-1 (a *_BINDING_COUNT)
  uint32_t pushConstantBytes = 0;
  SpecConstants constants;
  // Non-zero: the pipeline requires this subgroup size with full subgroups (the device must
  // have compute subgroup size control; see CoopmatChoice).
  uint32_t requiredSubgroupSize = 0;
  // SPIR-V of a client's own kernel (a registry the client embeds, see vkattn_shader_registry);
  // empty: the runtime's module named `shader`. Pipelines are cached by name, so a client's
  // names must differ from the runtime's (e.g. "viewer/heatmap_downsample").
  std::span<const uint32_t> code = {};
};

class Pipeline {
 public:
  Pipeline(const Device& device, const PipelineDesc& desc);

  VkPipeline handle() const noexcept { return m_pipeline.get(); }
  VkPipelineLayout layout() const noexcept { return m_layout.get(); }
  VkDescriptorSetLayout setLayout() const noexcept { return m_setLayout.get(); }
  uint32_t bindingCount() const noexcept { return m_bindings; }
  uint32_t pushConstantBytes() const noexcept { return m_pushBytes; }
  const std::string& name() const noexcept { return m_name; }

 private:
  std::string m_name;
  uint32_t m_bindings = 0;
  uint32_t m_pushBytes = 0;
  DescriptorSetLayoutHandle m_setLayout;
  PipelineLayoutHandle m_layout;
  PipelineHandle m_pipeline;
};

// One statistic the driver reports for one executable of a pipeline (VK_KHR_pipeline_executable_
// properties): the executable's and the statistic's names as the driver gives them, and its value.
struct PipelineStatistic {
  std::string executable, name;
  double value = 0;
};

// The statistics of `pipeline` where its device captures them (Device::capturesPipelineStatistics),
// else none.
std::vector<PipelineStatistic> pipelineStatistics(const Device& device, const Pipeline& pipeline);

// One internal representation the driver keeps of one executable (its IR or its ISA), by name.
struct PipelineRepresentation {
  std::string executable, name;
  bool isText = false;
  std::string data;
};

// The internal representations of `pipeline` where its device captures statistics (the same
// extension), else none.
std::vector<PipelineRepresentation> pipelineRepresentations(const Device& device, const Pipeline& pipeline);

class PipelineLibrary {
 public:
  explicit PipelineLibrary(const Device& device) : m_device(device) {}
  // Returns the pipeline for `desc`, creating it on first use.
  const Pipeline& get(const PipelineDesc& desc);
  std::size_t size() const noexcept { return m_pipelines.size(); }
  // Whether a pipeline of module `shader` exists here (which kernel a call ran).
  bool built(std::string_view shader) const;
  // Every pipeline built here, in no particular order.
  std::vector<const Pipeline*> all() const;

 private:
  const Device& m_device;
  std::map<std::pair<std::string, std::vector<uint32_t>>, std::unique_ptr<Pipeline>> m_pipelines;
};

// The SPIR-V of one registry entry; throws Error when `shader` is unknown.
std::span<const uint32_t> shaderCode(const std::string& shader);
// Every shader id in the registry.
std::vector<std::string> shaderNames();
// The subgroup operations (VkSubgroupFeatureFlags) a SPIR-V module's capabilities need.
uint32_t subgroupOperationsNeeded(std::span<const uint32_t> code);

}  // namespace vkattn
