// Exceptions thrown by vkattn. Every failure names what failed; bad input names the argument.
#pragma once

#include <stdexcept>
#include <string>

#include <vulkan/vulkan.h>

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

// A caller passed something the operation cannot take (wrong shape, dtype, size, value).
class InvalidArgument : public Error {
 public:
  InvalidArgument(const std::string& argument, const std::string& problem);
  const std::string& argument() const noexcept { return m_argument; }

 private:
  std::string m_argument;
};

// The device cannot do what was asked (missing feature, size beyond its limits).
class Unsupported : public Error {
 public:
  using Error::Error;
};

const char* resultName(VkResult result) noexcept;

inline void checkVk(VkResult result, const char* call) {
  if (result != VK_SUCCESS) throw VulkanError(call, result);
}

}  // namespace vkattn
