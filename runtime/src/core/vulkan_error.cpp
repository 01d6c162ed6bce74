#include "vkattn/core/vulkan_error.hpp"

namespace vkattn {

VulkanError::VulkanError(const std::string& call, VkResult result)
    : Error(call + " failed: " + resultName(result)), m_result(result) {}

void throwVulkanError(const std::string& call, VkResult result) {
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) throw OutOfMemory(call, result);
  if (result == VK_ERROR_DEVICE_LOST) throw DeviceLost(call + " (create a new vkattn::Context)", result);
  throw VulkanError(call, result);
}

const char* resultName(VkResult result) noexcept {
  switch (result) {
#define VKATTN_CASE(name) \
  case name:              \
    return #name;
    VKATTN_CASE(VK_SUCCESS)
    VKATTN_CASE(VK_NOT_READY)
    VKATTN_CASE(VK_TIMEOUT)
    VKATTN_CASE(VK_INCOMPLETE)
    VKATTN_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    VKATTN_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    VKATTN_CASE(VK_ERROR_INITIALIZATION_FAILED)
    VKATTN_CASE(VK_ERROR_DEVICE_LOST)
    VKATTN_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    VKATTN_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    VKATTN_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    VKATTN_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    VKATTN_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    VKATTN_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    VKATTN_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    VKATTN_CASE(VK_ERROR_FRAGMENTED_POOL)
    VKATTN_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    VKATTN_CASE(VK_ERROR_INVALID_SHADER_NV)
    VKATTN_CASE(VK_ERROR_UNKNOWN)
#undef VKATTN_CASE
    default:
      return "VkResult(unknown)";
  }
}

}  // namespace vkattn
