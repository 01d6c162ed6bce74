#include "vkattn/core/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "pipeline_trace.hpp"
#include "shader_registry.hpp"
#include "spirv_interface.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/spirv_float_controls.hpp"
#include "vkattn/core/vulkan_error.hpp"

namespace vkattn {

std::span<const uint32_t> shaderCode(const std::string& shader) {
  for (const auto& entry : detail::shaderRegistry())
    if (shader == entry.name) return entry.code;
  throw Error("no embedded shader named '" + shader + "'");
}

std::vector<std::string> shaderNames() {
  std::vector<std::string> names;
  for (const auto& entry : detail::shaderRegistry()) names.emplace_back(entry.name);
  return names;
}

uint32_t subgroupOperationsNeeded(std::span<const uint32_t> code) {
  // SPIR-V capabilities GroupNonUniform (61) .. GroupNonUniformQuad (68) map in order onto
  // VK_SUBGROUP_FEATURE_BASIC_BIT .. VK_SUBGROUP_FEATURE_QUAD_BIT.
  constexpr uint32_t kOpCapability = 17, kFirst = 61, kLast = 68;
  uint32_t needed = 0;
  for (std::size_t at = 5; at < code.size();) {
    const uint32_t count = code[at] >> 16;
    if (count == 0) break;
    if ((code[at] & 0xffffu) == kOpCapability && at + 1 < code.size() && code[at + 1] >= kFirst &&
        code[at + 1] <= kLast)
      needed |= 1u << (code[at + 1] - kFirst);
    at += count;
  }
  return needed;
}

namespace {

// The constants and bindings the caller names must be the ones the module declares: a constant
// the module declares with another type, or a binding past the caller's count, means the C++ and
// GLSL sides disagree (kernel_interface.h keeps them in step).
void checkInterface(const std::string& name, std::span<const uint32_t> code, const PipelineDesc& desc) {
  const detail::SpirvInterface declared = detail::readSpirvInterface(code);
  for (const SpecConstants::Entry& e : desc.constants.entries()) {
    // A constant the module does not use may have been optimised away: only declared ones are checked.
    auto it = declared.specConstants.find(e.id);
    if (it != declared.specConstants.end() && it->second != e.kind)
      throw Error(name + ": specialization constant " + std::to_string(e.id) + " is declared " + toString(it->second) +
                  " but set as " + toString(e.kind));
  }
  for (uint32_t binding : declared.bindings)
    if (binding >= desc.bindings)
      throw Error(name + ": the shader declares binding " + std::to_string(binding) + " but the pipeline has " +
                  std::to_string(desc.bindings));
}

const char* subgroupOperationName(uint32_t bit) {
  switch (bit) {
    case VK_SUBGROUP_FEATURE_BASIC_BIT:
      return "basic";
    case VK_SUBGROUP_FEATURE_VOTE_BIT:
      return "vote";
    case VK_SUBGROUP_FEATURE_ARITHMETIC_BIT:
      return "arithmetic";
    case VK_SUBGROUP_FEATURE_BALLOT_BIT:
      return "ballot";
    case VK_SUBGROUP_FEATURE_SHUFFLE_BIT:
      return "shuffle";
    case VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT:
      return "relative shuffle";
    case VK_SUBGROUP_FEATURE_CLUSTERED_BIT:
      return "clustered";
    default:
      return "quad";
  }
}

// Refuses, by name, a module whose subgroup operations the device lacks in compute shaders,
// instead of handing the driver SPIR-V it does not support.
void requireSubgroupOperations(const Device& device, const std::string& shader, std::span<const uint32_t> code) {
  const uint32_t missing = subgroupOperationsNeeded(code) & ~device.info().subgroupOperations;
  if (!missing) return;
  std::string names;
  for (uint32_t bit = 1; bit <= VK_SUBGROUP_FEATURE_QUAD_BIT; bit <<= 1)
    if (missing & bit) names += std::string(names.empty() ? "" : ", ") + subgroupOperationName(bit);
  throw Unsupported(shader + " needs subgroup operations (" + names + ") in compute shaders, which " +
                    device.info().name + " does not support");
}

}  // namespace

Pipeline::Pipeline(const Device& device, const PipelineDesc& desc)
    : m_name(desc.shader), m_bindings(desc.bindings), m_pushBytes(desc.pushConstantBytes) {
  if (m_pushBytes > device.info().maxPushConstantsSize)
    throw Unsupported(m_name + ": push constants of " + std::to_string(m_pushBytes) + " bytes exceed the device's " +
                      std::to_string(device.info().maxPushConstantsSize));
  VkDevice dev = device.handle();
  const auto code = desc.code.empty() ? shaderCode(desc.shader) : desc.code;
  checkInterface(m_name, code, desc);
  requireSubgroupOperations(device, m_name, code);
  if (desc.requiredSubgroupSize && !device.info().computeSubgroupSizeControl)
    throw Unsupported(m_name + " needs subgroups of " + std::to_string(desc.requiredSubgroupSize) + " lanes, but " +
                      device.info().name + " cannot require a subgroup size");

  std::vector<VkDescriptorSetLayoutBinding> bindings(m_bindings);
  for (uint32_t i = 0; i < m_bindings; ++i)
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = m_bindings;
  setInfo.pBindings = bindings.data();

  ShaderModuleHandle module;  // freed once the pipeline holds the code
  checkVk(vkCreateDescriptorSetLayout(dev, &setInfo, nullptr, m_setLayout.receive(dev)), "vkCreateDescriptorSetLayout");
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, m_pushBytes};
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  const VkDescriptorSetLayout setLayout = m_setLayout.get();
  layoutInfo.pSetLayouts = &setLayout;
  layoutInfo.pushConstantRangeCount = m_pushBytes ? 1 : 0;
  layoutInfo.pPushConstantRanges = &range;
  checkVk(vkCreatePipelineLayout(dev, &layoutInfo, nullptr, m_layout.receive(dev)), "vkCreatePipelineLayout");

  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  // NaN reports must survive the driver's float optimisations where the device lets them.
  // VKATTN_NAN_PRESERVE=0 leaves the modules as compiled (tests of the kernels where the driver
  // may assume that no NaN or Inf occurs).
  const char* preserveSetting = std::getenv("VKATTN_NAN_PRESERVE");
  const bool preserve = preserveSetting == nullptr || std::string_view(preserveSetting) != "0";
  const std::vector<uint32_t> preserving =
      withNanPreserve(code, preserve && device.info().nanPreserveFloat16, preserve && device.info().nanPreserveFloat32);
  moduleInfo.codeSize = preserving.size() * sizeof(uint32_t);
  moduleInfo.pCode = preserving.data();
  checkVk(vkCreateShaderModule(dev, &moduleInfo, nullptr, module.receive(dev)), "vkCreateShaderModule");

  const auto& constants = desc.constants.entries();
  std::vector<uint32_t> words(constants.size());
  std::vector<VkSpecializationMapEntry> entries(constants.size());
  for (uint32_t i = 0; i < constants.size(); ++i) {
    words[i] = constants[i].word;
    entries[i] = {constants[i].id, i * 4u, 4u};
  }
  VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(), words.size() * 4u, words.data()};

  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  if (device.capturesPipelineStatistics())
    info.flags |=
        VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR | VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module.get();
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = words.empty() ? nullptr : &spec;
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfoEXT subgroupSize{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO_EXT};
  subgroupSize.requiredSubgroupSize = desc.requiredSubgroupSize;
  if (desc.requiredSubgroupSize) {
    info.stage.pNext = &subgroupSize;
    info.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT_EXT;
  }
  info.layout = m_layout.get();
  const auto start = std::chrono::steady_clock::now();
  checkVk(vkCreateComputePipelines(dev, device.pipelineCache(), 1, &info, nullptr, m_pipeline.receive(dev)),
          ("vkCreateComputePipelines(" + m_name + ")").c_str());
  if (detail::pipelineTraceRequested())
    detail::tracePipelineBuild(
        m_name, desc.constants,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
}

std::vector<const Pipeline*> PipelineLibrary::all() const {
  std::vector<const Pipeline*> pipelines;
  for (const auto& [key, pipeline] : m_pipelines) pipelines.push_back(pipeline.get());
  return pipelines;
}

namespace {

// The names of `pipeline`'s executables (one per shader stage the driver built), and for each of
// them the VkPipelineExecutableInfoKHR that its statistics and representations are asked with.
struct Executable {
  std::string name;
  VkPipelineExecutableInfoKHR info;
};
std::vector<Executable> executablesOf(VkDevice dev, const Pipeline& pipeline) {
  auto properties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      vkGetDeviceProcAddr(dev, "vkGetPipelineExecutablePropertiesKHR"));
  if (!properties) return {};
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  info.pipeline = pipeline.handle();
  uint32_t count = 0;
  checkVk(properties(dev, &info, &count, nullptr), "vkGetPipelineExecutablePropertiesKHR");
  std::vector<VkPipelineExecutablePropertiesKHR> found(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  checkVk(properties(dev, &info, &count, found.data()), "vkGetPipelineExecutablePropertiesKHR");
  std::vector<Executable> out;
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR which{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    which.pipeline = pipeline.handle();
    which.executableIndex = e;
    out.push_back({found[e].name, which});
  }
  return out;
}

}  // namespace

std::vector<PipelineStatistic> pipelineStatistics(const Device& device, const Pipeline& pipeline) {
  if (!device.capturesPipelineStatistics()) return {};
  VkDevice dev = device.handle();
  auto statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetDeviceProcAddr(dev, "vkGetPipelineExecutableStatisticsKHR"));
  if (!statistics) return {};
  std::vector<PipelineStatistic> out;
  for (const Executable& e : executablesOf(dev, pipeline)) {
    uint32_t n = 0;
    checkVk(statistics(dev, &e.info, &n, nullptr), "vkGetPipelineExecutableStatisticsKHR");
    std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    checkVk(statistics(dev, &e.info, &n, stats.data()), "vkGetPipelineExecutableStatisticsKHR");
    for (uint32_t i = 0; i < n; ++i) {
      double value = 0;
      switch (stats[i].format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
          value = stats[i].value.b32;
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
          value = static_cast<double>(stats[i].value.i64);
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
          value = static_cast<double>(stats[i].value.u64);
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
          value = stats[i].value.f64;
          break;
        default:
          break;
      }
      out.push_back({e.name, stats[i].name, value});
    }
  }
  return out;
}

std::vector<PipelineRepresentation> pipelineRepresentations(const Device& device, const Pipeline& pipeline) {
  if (!device.capturesPipelineStatistics()) return {};
  VkDevice dev = device.handle();
  auto representations = reinterpret_cast<PFN_vkGetPipelineExecutableInternalRepresentationsKHR>(
      vkGetDeviceProcAddr(dev, "vkGetPipelineExecutableInternalRepresentationsKHR"));
  if (!representations) return {};
  std::vector<PipelineRepresentation> out;
  for (const Executable& e : executablesOf(dev, pipeline)) {
    uint32_t n = 0;
    checkVk(representations(dev, &e.info, &n, nullptr), "vkGetPipelineExecutableInternalRepresentationsKHR");
    std::vector<VkPipelineExecutableInternalRepresentationKHR> texts(
        n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR});
    checkVk(representations(dev, &e.info, &n, texts.data()), "vkGetPipelineExecutableInternalRepresentationsKHR");
    std::vector<std::string> data(n);
    for (uint32_t i = 0; i < n; ++i) {  // the sizes are known now: fetch the text itself
      data[i].resize(texts[i].dataSize);
      texts[i].pData = data[i].data();
    }
    checkVk(representations(dev, &e.info, &n, texts.data()), "vkGetPipelineExecutableInternalRepresentationsKHR");
    for (uint32_t i = 0; i < n; ++i) {
      if (texts[i].isText && !data[i].empty() && data[i].back() == '\0') data[i].pop_back();
      out.push_back({e.name, texts[i].name, texts[i].isText == VK_TRUE, std::move(data[i])});
    }
  }
  return out;
}

bool PipelineLibrary::built(std::string_view shader) const {
  for (const auto& [key, pipeline] : m_pipelines)
    if (key.first == shader) return true;
  return false;
}

const Pipeline& PipelineLibrary::get(const PipelineDesc& desc) {
  auto key = std::make_pair(desc.shader, desc.constants.key());
  auto it = m_pipelines.find(key);
  if (it != m_pipelines.end()) return *it->second;
  auto pipeline = std::make_unique<Pipeline>(m_device, desc);
  const Pipeline& ref = *pipeline;
  m_pipelines.emplace(std::move(key), std::move(pipeline));
  return ref;
}

}  // namespace vkattn
