// VK_KHR_cooperative_matrix's API, declared here because Debian 12's Vulkan headers (1.3.239)
// predate it. Layouts and values from the Vulkan registry (extension 507).
#pragma once

#include <vulkan/vulkan.h>

namespace vkattn::detail {

inline constexpr const char* kKhrCooperativeMatrixExtension = "VK_KHR_cooperative_matrix";
inline constexpr auto kStructPhysicalDeviceCooperativeMatrixFeaturesKhr = static_cast<VkStructureType>(1000506000);
inline constexpr auto kStructCooperativeMatrixPropertiesKhr = static_cast<VkStructureType>(1000506001);
inline constexpr uint32_t kScopeSubgroupKhr = 3;  // VK_SCOPE_SUBGROUP_KHR

struct CooperativeMatrixPropertiesKhr {
  VkStructureType sType = kStructCooperativeMatrixPropertiesKhr;
  void* pNext = nullptr;
  uint32_t MSize = 0, NSize = 0, KSize = 0;
  uint32_t AType = 0, BType = 0, CType = 0, ResultType = 0;  // VkComponentTypeKHR (the NV values)
  VkBool32 saturatingAccumulation = VK_FALSE;
  uint32_t scope = 0;  // VkScopeKHR
};

struct PhysicalDeviceCooperativeMatrixFeaturesKhr {
  VkStructureType sType = kStructPhysicalDeviceCooperativeMatrixFeaturesKhr;
  void* pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};

using GetCooperativeMatrixPropertiesKhr = VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*,
                                                               CooperativeMatrixPropertiesKhr*);

}  // namespace vkattn::detail
