#include "vkattn/core/device_info.hpp"

#include <cstring>
#include <string_view>

namespace vkattn {
namespace {

DeviceKind kindOf(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return DeviceKind::Discrete;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return DeviceKind::Integrated;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return DeviceKind::Virtual;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return DeviceKind::Cpu;
    default: return DeviceKind::Other;
  }
}

bool hasExtension(const std::vector<VkExtensionProperties>& extensions, std::string_view name) {
  for (const auto& e : extensions)
    if (name == e.extensionName) return true;
  return false;
}

const char* componentName(VkComponentTypeNV type) {
  switch (type) {
    case VK_COMPONENT_TYPE_FLOAT16_NV: return "f16";
    case VK_COMPONENT_TYPE_FLOAT32_NV: return "f32";
    case VK_COMPONENT_TYPE_FLOAT64_NV: return "f64";
    case VK_COMPONENT_TYPE_SINT8_NV: return "s8";
    case VK_COMPONENT_TYPE_UINT8_NV: return "u8";
    case VK_COMPONENT_TYPE_SINT32_NV: return "s32";
    case VK_COMPONENT_TYPE_UINT32_NV: return "u32";
    default: return "other";
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
    info.cooperativeMatrixShapes.push_back({s.MSize, s.NSize, s.KSize, componentName(s.AType),
                                            componentName(s.BType), componentName(s.CType),
                                            componentName(s.DType)});
}

}  // namespace

const char* toString(DeviceKind kind) noexcept {
  switch (kind) {
    case DeviceKind::Discrete: return "discrete GPU";
    case DeviceKind::Integrated: return "integrated GPU";
    case DeviceKind::Virtual: return "virtual GPU";
    case DeviceKind::Cpu: return "CPU";
    default: return "other";
  }
}

const char* toString(KernelProfile profile) noexcept {
  return profile == KernelProfile::CpuDriver ? "cpu" : "gpu";
}

DeviceInfo queryDeviceInfo(VkInstance instance, VkPhysicalDevice device, uint32_t index) {
  DeviceInfo info;
  info.index = index;

  VkPhysicalDeviceSubgroupSizeControlProperties sizeControl{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  subgroup.pNext = &sizeControl;
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  driver.pNext = &subgroup;
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
  info.subgroupArithmetic =
      computeSubgroups && (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  info.subgroupShuffle =
      computeSubgroups && (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);
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
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  if (nvCooperativeMatrix) v12.pNext = &coopmat;
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  v11.pNext = &v12;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &v11;
  vkGetPhysicalDeviceFeatures2(device, &features);
  info.vulkanMemoryModel = v12.vulkanMemoryModel;
  info.shaderFloat16 = v12.shaderFloat16;
  info.shaderInt8 = v12.shaderInt8;
  info.storageBuffer16BitAccess = v11.storageBuffer16BitAccess;
  info.storageBuffer8BitAccess = v12.storageBuffer8BitAccess;
  info.subgroupSizeControl = hasExtension(extensions, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &familyCount, families.data());
  for (const auto& f : families)
    if ((f.queueFlags & VK_QUEUE_COMPUTE_BIT) && f.timestampValidBits > 0) info.timestamps = true;

  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(device, &memory);
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i)
    if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      info.deviceLocalBytes = std::max<uint64_t>(info.deviceLocalBytes, memory.memoryHeaps[i].size);

  info.cooperativeMatrix = hasExtension(extensions, "VK_KHR_cooperative_matrix") ||
                           hasExtension(extensions, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  if (nvCooperativeMatrix) queryCooperativeMatrix(instance, device, info);
  bool f16Shape = false;
  for (const auto& s : info.cooperativeMatrixShapes)
    f16Shape = f16Shape || (s.m == 16 && s.n == 16 && s.k == 16 && s.aType == "f16" && s.bType == "f16" &&
                            s.cType == "f32" && s.resultType == "f32");
  info.cooperativeMatrixF16 = nvCooperativeMatrix && coopmat.cooperativeMatrix && f16Shape && info.shaderFloat16 &&
                              info.storageBuffer16BitAccess && info.vulkanMemoryModel &&
                              info.minSubgroupSize == info.maxSubgroupSize;
  return info;
}

}  // namespace vkattn
