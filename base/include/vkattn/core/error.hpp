// Exceptions thrown by vkattn. Every failure names what failed; bad input names the argument.
// The errors of Vulkan calls (VulkanError, OutOfMemory, DeviceLost) derive from Error and live
// with the runtime: vkattn/core/vulkan_error.hpp.
#pragma once

#include <stdexcept>
#include <string>

namespace vkattn {

// Base class of every vkattn error.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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

}  // namespace vkattn
