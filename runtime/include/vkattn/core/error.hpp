// Exceptions thrown by vkattn. Every failure names what failed; bad input names the argument.
#pragma once

#include <vulkan/vulkan.h>

#include <stdexcept>
#include <string>

namespace vkattn {

// Base class of every vkattn error.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

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

// A caller passed something the operation cannot take (wrong shape, dtype, size, value).
class InvalidArgument : public Error {
 public:
  InvalidArgument(const std::string& argument, const std::string& problem);
  const std::string& argument() const noexcept { return m_argument; }
  const std::string& problem() const noexcept { return m_problem; }

 private:
  std::string m_argument, m_problem;
};

// The device cannot do what was asked (missing feature, size beyond its limits).
class Unsupported : public Error {
 public:
  using Error::Error;
};

const char* resultName(VkResult result) noexcept;

// Throws the VulkanError for a failed call: OutOfMemory and DeviceLost for those results.
[[noreturn]] void throwVulkanError(const std::string& call, VkResult result);

inline void checkVk(VkResult result, const char* call) {
  if (result != VK_SUCCESS) throwVulkanError(call, result);
}

}  // namespace vkattn
