// VK_NV_cooperative_matrix2's API, declared here because Debian 12's Vulkan headers (1.3.239)
// predate it. Layouts and values from the Vulkan registry (extension 594).
#pragma once

#include <vulkan/vulkan.h>

namespace vkattn::detail {

inline constexpr const char* kNvCooperativeMatrix2Extension = "VK_NV_cooperative_matrix2";
inline constexpr auto kStructPhysicalDeviceCooperativeMatrix2FeaturesNv = static_cast<VkStructureType>(1000593000);
inline constexpr auto kStructCooperativeMatrixFlexibleDimensionsPropertiesNv = static_cast<VkStructureType>(1000593001);
inline constexpr auto kStructPhysicalDeviceCooperativeMatrix2PropertiesNv = static_cast<VkStructureType>(1000593002);

struct PhysicalDeviceCooperativeMatrix2FeaturesNv {
  VkStructureType sType = kStructPhysicalDeviceCooperativeMatrix2FeaturesNv;
  void* pNext = nullptr;
  VkBool32 cooperativeMatrixWorkgroupScope = VK_FALSE;
  VkBool32 cooperativeMatrixFlexibleDimensions = VK_FALSE;
  VkBool32 cooperativeMatrixReductions = VK_FALSE;
  VkBool32 cooperativeMatrixConversions = VK_FALSE;
  VkBool32 cooperativeMatrixPerElementOperations = VK_FALSE;
  VkBool32 cooperativeMatrixTensorAddressing = VK_FALSE;
  VkBool32 cooperativeMatrixBlockLoads = VK_FALSE;
};

struct PhysicalDeviceCooperativeMatrix2PropertiesNv {
  VkStructureType sType = kStructPhysicalDeviceCooperativeMatrix2PropertiesNv;
  void* pNext = nullptr;
  uint32_t cooperativeMatrixWorkgroupScopeMaxWorkgroupSize = 0;
  uint32_t cooperativeMatrixFlexibleDimensionsMaxDimension = 0;
  uint32_t cooperativeMatrixWorkgroupScopeReservedSharedMemory = 0;
};

struct CooperativeMatrixFlexibleDimensionsPropertiesNv {
  VkStructureType sType = kStructCooperativeMatrixFlexibleDimensionsPropertiesNv;
  void* pNext = nullptr;
  uint32_t MGranularity = 0, NGranularity = 0, KGranularity = 0;
  uint32_t AType = 0, BType = 0, CType = 0, ResultType = 0;  // VkComponentTypeKHR
  VkBool32 saturatingAccumulation = VK_FALSE;
  uint32_t scope = 0;  // VkScopeKHR
  uint32_t workgroupInvocations = 0;
};

using GetCooperativeMatrixFlexibleDimensionsPropertiesNv =
    VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*, CooperativeMatrixFlexibleDimensionsPropertiesNv*);

}  // namespace vkattn::detail
