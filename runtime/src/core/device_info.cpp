#include "vkattn/core/device_info.hpp"

#include <cstring>
#include <string_view>

#include "khr_cooperative_matrix_api.hpp"
#include "nv_cooperative_matrix2_api.hpp"

namespace vkattn {
namespace {

DeviceKind kindOf(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return DeviceKind::Discrete;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return DeviceKind::Integrated;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return DeviceKind::Virtual;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return DeviceKind::Cpu;
    default:
      return DeviceKind::Other;
  }
}

// Puts `next` at the front of `head`'s pNext chain.
template <typename Head, typename Next>
void chainInto(Head& head, Next& next) {
  next.pNext = head.pNext;
  head.pNext = &next;
}

bool hasExtension(const std::vector<VkExtensionProperties>& extensions, std::string_view name) {
  for (const auto& e : extensions)
    if (name == e.extensionName) return true;
  return false;
}

const char* componentName(uint32_t type) {
  switch (static_cast<VkComponentTypeNV>(type)) {
    case VK_COMPONENT_TYPE_FLOAT16_NV:
      return "f16";
    case VK_COMPONENT_TYPE_FLOAT32_NV:
      return "f32";
    case VK_COMPONENT_TYPE_FLOAT64_NV:
      return "f64";
    case VK_COMPONENT_TYPE_SINT8_NV:
      return "s8";
    case VK_COMPONENT_TYPE_UINT8_NV:
      return "u8";
    case VK_COMPONENT_TYPE_SINT32_NV:
      return "s32";
    case VK_COMPONENT_TYPE_UINT32_NV:
      return "u32";
    default:
      return "other";
  }
}

void queryCooperativeMatrix(VkInstance instance, VkPhysicalDevice device, DeviceInfo& info) {
  auto getProperties = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  if (!getProperties) return;
  uint32_t count = 0;
  if (getProperties(device, &count, nullptr) != VK_SUCCESS || count == 0) return;
  std::vector<VkCooperativeMatrixPropertiesNV> shapes(
      count, VkCooperativeMatrixPropertiesNV{VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
  if (getProperties(device, &count, shapes.data()) != VK_SUCCESS) return;
  for (const auto& s : shapes)
    info.cooperativeMatrixShapes.push_back({s.MSize, s.NSize, s.KSize, componentName(s.AType), componentName(s.BType),
                                            componentName(s.CType), componentName(s.DType), CoopmatFlavour::Nv,
                                            s.scope == VK_SCOPE_SUBGROUP_NV, false});
}

void queryCooperativeMatrixKhr(VkInstance instance, VkPhysicalDevice device, DeviceInfo& info) {
  auto getProperties = reinterpret_cast<detail::GetCooperativeMatrixPropertiesKhr>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  if (!getProperties) return;
  uint32_t count = 0;
  if (getProperties(device, &count, nullptr) != VK_SUCCESS || count == 0) return;
  std::vector<detail::CooperativeMatrixPropertiesKhr> shapes(count);
  if (getProperties(device, &count, shapes.data()) != VK_SUCCESS) return;
  shapes.resize(count);
  for (const auto& s : shapes)
    info.cooperativeMatrixShapes.push_back({s.MSize, s.NSize, s.KSize, componentName(s.AType), componentName(s.BType),
                                            componentName(s.CType), componentName(s.ResultType), CoopmatFlavour::Khr,
                                            s.scope == detail::kScopeSubgroupKhr, s.saturatingAccumulation == VK_TRUE});
}

void queryFlexibleShapes(VkInstance instance, VkPhysicalDevice device, DeviceInfo& info) {
  auto getProperties = reinterpret_cast<detail::GetCooperativeMatrixFlexibleDimensionsPropertiesNv>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV"));
  if (!getProperties) return;
  uint32_t count = 0;
  if (getProperties(device, &count, nullptr) != VK_SUCCESS || count == 0) return;
  std::vector<detail::CooperativeMatrixFlexibleDimensionsPropertiesNv> shapes(count);
  if (getProperties(device, &count, shapes.data()) != VK_SUCCESS) return;
  shapes.resize(count);
  for (const auto& s : shapes)
    info.flexibleShapes.push_back({s.MGranularity, s.NGranularity, s.KGranularity, componentName(s.AType),
                                   componentName(s.BType), componentName(s.CType), componentName(s.ResultType),
                                   CoopmatFlavour::Khr, s.scope == detail::kScopeSubgroupKhr,
                                   s.saturatingAccumulation == VK_TRUE});
}

// Compute units from whichever vendor extension reports them (see DeviceInfo::computeUnits).
void queryComputeUnits(VkPhysicalDevice device, const std::vector<VkExtensionProperties>& extensions,
                       DeviceInfo& info) {
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nv{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDeviceShaderCorePropertiesAMD amd{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
  VkPhysicalDeviceShaderCoreProperties2AMD amd2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_2_AMD};
  VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM arm{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM};
  const bool hasNv = hasExtension(extensions, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  const bool hasAmd = hasExtension(extensions, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
  const bool hasAmd2 = hasExtension(extensions, VK_AMD_SHADER_CORE_PROPERTIES_2_EXTENSION_NAME);
  const bool hasArm = hasExtension(extensions, VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME);
  if (!hasNv && !hasAmd && !hasAmd2 && !hasArm) return;
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  if (hasNv) chainInto(props, nv);
  if (hasAmd) chainInto(props, amd);
  if (hasAmd2) chainInto(props, amd2);
  if (hasArm) chainInto(props, arm);
  vkGetPhysicalDeviceProperties2(device, &props);
  if (hasNv && nv.shaderSMCount) {
    info.computeUnits = nv.shaderSMCount;
    info.computeUnitsSource = "SMs, VK_NV_shader_sm_builtins";
  } else if (hasAmd2 && amd2.activeComputeUnitCount) {
    info.computeUnits = amd2.activeComputeUnitCount;
    info.computeUnitsSource = "active CUs, VK_AMD_shader_core_properties2";
  } else if (const uint32_t amdUnits =
                 amd.shaderEngineCount * amd.shaderArraysPerEngineCount * amd.computeUnitsPerShaderArray;
             hasAmd && amdUnits != 0) {
    info.computeUnits = amdUnits;
    info.computeUnitsSource = "CUs, VK_AMD_shader_core_properties";
  } else if (hasArm && arm.shaderCoreCount) {
    info.computeUnits = arm.shaderCoreCount;
    info.computeUnitsSource = "shader cores, VK_ARM_shader_core_builtins";
  }
}

// Which packed 8-bit dot products run as one instruction (the feature itself is read with the
// others in queryDeviceInfo).
void queryIntegerDotAcceleration(VkPhysicalDevice device, DeviceInfo& info) {
  VkPhysicalDeviceShaderIntegerDotProductProperties dot{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &dot;
  vkGetPhysicalDeviceProperties2(device, &props);
  info.int8DotAccelerated = dot.integerDotProduct4x8BitPackedSignedAccelerated == VK_TRUE;
  info.int8DotMixedSignednessAccelerated = dot.integerDotProduct4x8BitPackedMixedSignednessAccelerated == VK_TRUE;
}

// The queue family Device picks when the caller asks for nothing beyond compute.
const VkQueueFamilyProperties* defaultComputeFamily(const std::vector<VkQueueFamilyProperties>& families) {
  for (const auto& f : families)
    if ((f.queueFlags & VK_QUEUE_COMPUTE_BIT) && (f.queueFlags & VK_QUEUE_GRAPHICS_BIT)) return &f;
  for (const auto& f : families)
    if (f.queueFlags & VK_QUEUE_COMPUTE_BIT) return &f;
  return nullptr;
}

}  // namespace

const char* toString(DeviceKind kind) noexcept {
  switch (kind) {
    case DeviceKind::Discrete:
      return "discrete GPU";
    case DeviceKind::Integrated:
      return "integrated GPU";
    case DeviceKind::Virtual:
      return "virtual GPU";
    case DeviceKind::Cpu:
      return "CPU";
    default:
      return "other";
  }
}

const char* toString(KernelProfile profile) noexcept {
  return profile == KernelProfile::CpuDriver ? "cpu" : "gpu";
}

const char* toString(CoopmatFlavour flavour) noexcept {
  switch (flavour) {
    case CoopmatFlavour::Nv:
      return "NV";
    case CoopmatFlavour::Khr:
      return "KHR";
    default:
      return "none";
  }
}

DeviceInfo queryDeviceInfo(VkInstance instance, VkPhysicalDevice device, uint32_t index) {
  DeviceInfo info;
  info.index = index;

  VkPhysicalDeviceSubgroupSizeControlProperties sizeControl{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  subgroup.pNext = &sizeControl;
  VkPhysicalDeviceFloatControlsProperties floatControls{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
  floatControls.pNext = &subgroup;
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  driver.pNext = &floatControls;
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &driver;
  vkGetPhysicalDeviceProperties2(device, &props);
  const auto& p = props.properties;

  info.name = p.deviceName;
  info.kind = kindOf(p.deviceType);
  info.vendorId = p.vendorID;
  info.apiVersion = p.apiVersion;
  info.driverName = driver.driverName;
  info.driverInfo = driver.driverInfo;
  if (driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE) info.loopIterationLimit = 65535;
  std::memcpy(info.pipelineCacheUuid, p.pipelineCacheUUID, VK_UUID_SIZE);

  info.subgroupSize = subgroup.subgroupSize;
  info.minSubgroupSize = sizeControl.minSubgroupSize ? sizeControl.minSubgroupSize : subgroup.subgroupSize;
  info.maxSubgroupSize = sizeControl.maxSubgroupSize ? sizeControl.maxSubgroupSize : subgroup.subgroupSize;
  bool computeSubgroups = subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT;
  info.subgroupArithmetic = computeSubgroups && (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  info.subgroupShuffle = computeSubgroups && (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);
  info.subgroupOperations = computeSubgroups ? subgroup.supportedOperations : 0;
  info.nanPreserveFloat16 = floatControls.shaderSignedZeroInfNanPreserveFloat16;
  info.nanPreserveFloat32 = floatControls.shaderSignedZeroInfNanPreserveFloat32;
  info.maxSharedMemoryBytes = p.limits.maxComputeSharedMemorySize;
  info.maxWorkgroupInvocations = p.limits.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) info.maxWorkgroupCount[i] = p.limits.maxComputeWorkGroupCount[i];
  info.maxStorageBufferRange = p.limits.maxStorageBufferRange;
  info.maxPushConstantsSize = p.limits.maxPushConstantsSize;
  info.minStorageBufferOffsetAlignment = p.limits.minStorageBufferOffsetAlignment;
  info.timestampPeriodNs = p.limits.timestampPeriod;

  uint32_t extensionCount = 0;
  vkEnumerateDeviceExtensionProperties(device, nullptr, &extensionCount, nullptr);
  std::vector<VkExtensionProperties> extensions(extensionCount);
  vkEnumerateDeviceExtensionProperties(device, nullptr, &extensionCount, extensions.data());
  const bool nvCooperativeMatrix = hasExtension(extensions, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  const bool khrCooperativeMatrix = hasExtension(extensions, detail::kKhrCooperativeMatrixExtension);
  const bool nvCooperativeMatrix2 = hasExtension(extensions, detail::kNvCooperativeMatrix2Extension);
  const bool executableProperties = hasExtension(extensions, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  const bool sizeControlOffered = hasExtension(extensions, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  const bool integerDotOffered = hasExtension(extensions, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
  // Only structures of offered extensions go into the chain.
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  detail::PhysicalDeviceCooperativeMatrixFeaturesKhr coopmatKhr;
  detail::PhysicalDeviceCooperativeMatrix2FeaturesNv coopmat2;
  VkPhysicalDeviceSubgroupSizeControlFeaturesEXT sizeControlFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  if (nvCooperativeMatrix) chainInto(v12, coopmat);
  if (khrCooperativeMatrix) chainInto(v12, coopmatKhr);
  if (nvCooperativeMatrix2) chainInto(v12, coopmat2);
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  if (executableProperties) chainInto(v12, executableFeatures);
  if (sizeControlOffered) chainInto(v12, sizeControlFeatures);
  VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  const bool vulkan13 = VK_API_VERSION_MAJOR(p.apiVersion) > 1 || VK_API_VERSION_MINOR(p.apiVersion) >= 3;
  if (vulkan13) chainInto(v12, v13);
  // 8-bit dot products: in Vulkan 1.3's block, else the extension's own structure.
  VkPhysicalDeviceShaderIntegerDotProductFeatures integerDot{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES};
  if (!vulkan13 && integerDotOffered) chainInto(v12, integerDot);
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  v11.pNext = &v12;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &v11;
  vkGetPhysicalDeviceFeatures2(device, &features);
  info.maintenance4 = vulkan13 && v13.maintenance4;
  info.integerDotProduct = vulkan13 ? v13.shaderIntegerDotProduct == VK_TRUE
                                    : integerDotOffered && integerDot.shaderIntegerDotProduct == VK_TRUE;
  if (vulkan13 || integerDotOffered) queryIntegerDotAcceleration(device, info);
  info.pipelineExecutableInfo = executableProperties && executableFeatures.pipelineExecutableInfo;
  info.vulkanMemoryModel = v12.vulkanMemoryModel && v12.vulkanMemoryModelDeviceScope;
  info.shaderFloat16 = v12.shaderFloat16;
  info.shaderInt8 = v12.shaderInt8;
  info.storageBuffer16BitAccess = v11.storageBuffer16BitAccess;
  info.storageBuffer8BitAccess = v12.storageBuffer8BitAccess;
  info.bufferDeviceAddress = v12.bufferDeviceAddress;
  info.subgroupSizeControl = sizeControlOffered;
  info.computeSubgroupSizeControl = sizeControlOffered && sizeControlFeatures.subgroupSizeControl &&
                                    sizeControlFeatures.computeFullSubgroups &&
                                    (sizeControl.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);
  info.portabilitySubset = hasExtension(extensions, "VK_KHR_portability_subset");
  queryComputeUnits(device, extensions, info);

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &familyCount, families.data());
  if (const VkQueueFamilyProperties* family = defaultComputeFamily(families)) {
    info.timestampValidBits = family->timestampValidBits;
    info.timestamps = family->timestampValidBits > 0;
  }

  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(device, &memory);
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i)
    if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      info.deviceLocalBytes = std::max<uint64_t>(info.deviceLocalBytes, memory.memoryHeaps[i].size);

  info.cooperativeMatrix = khrCooperativeMatrix || nvCooperativeMatrix;
  info.nvCooperativeMatrix = nvCooperativeMatrix && coopmat.cooperativeMatrix;
  info.khrCooperativeMatrix = khrCooperativeMatrix && coopmatKhr.cooperativeMatrix;
  if (nvCooperativeMatrix) queryCooperativeMatrix(instance, device, info);
  if (khrCooperativeMatrix) queryCooperativeMatrixKhr(instance, device, info);
  if (nvCooperativeMatrix2) {
    info.nvCooperativeMatrix2 = true;
    info.cooperativeMatrix2 = {coopmat2.cooperativeMatrixWorkgroupScope == VK_TRUE,
                               coopmat2.cooperativeMatrixFlexibleDimensions == VK_TRUE,
                               coopmat2.cooperativeMatrixReductions == VK_TRUE,
                               coopmat2.cooperativeMatrixConversions == VK_TRUE,
                               coopmat2.cooperativeMatrixPerElementOperations == VK_TRUE,
                               coopmat2.cooperativeMatrixTensorAddressing == VK_TRUE,
                               coopmat2.cooperativeMatrixBlockLoads == VK_TRUE};
    detail::PhysicalDeviceCooperativeMatrix2PropertiesNv limits;
    VkPhysicalDeviceProperties2 more{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    more.pNext = &limits;
    vkGetPhysicalDeviceProperties2(device, &more);
    info.flexibleMaxDimension = limits.cooperativeMatrixFlexibleDimensionsMaxDimension;
    info.workgroupScopeMaxWorkgroupSize = limits.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize;
    info.workgroupScopeReservedSharedMemory = limits.cooperativeMatrixWorkgroupScopeReservedSharedMemory;
    if (info.cooperativeMatrix2.flexibleDimensions) queryFlexibleShapes(instance, device, info);
  }
  return info;
}

}  // namespace vkattn
