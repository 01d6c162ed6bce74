// The errors of failed Vulkan calls, each a vkattn::Error (vkattn/core/error.hpp) that keeps the
// call's VkResult.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

#include "vkattn/core/error.hpp"

namespace vkattn {

// A Vulkan call returned a failure code.
class VulkanError : public Error {
 public:
  VulkanError(const std::string& call, VkResult result);
  VkResult result() const noexcept { return m_result; }

 private:
  VkResult m_result;
};

// The device or the host had no memory for an allocation or a submission. Nothing is lost: the
// context keeps working (free something, or use smaller inputs, and call again).
class OutOfMemory : public VulkanError {
 public:
  using VulkanError::VulkanError;
};

// The device was lost (driver reset, hang, removal). Every later call on the same context throws
// this too: create a new vkattn::Context.
class DeviceLost : public VulkanError {
 public:
  using VulkanError::VulkanError;
};

const char* resultName(VkResult result) noexcept;

// Throws the VulkanError for a failed call: OutOfMemory and DeviceLost for those results.
[[noreturn]] void throwVulkanError(const std::string& call, VkResult result);

inline void checkVk(VkResult result, const char* call) {
  if (result != VK_SUCCESS) throwVulkanError(call, result);
}

}  // namespace vkattn
