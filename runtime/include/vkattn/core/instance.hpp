// Instance: owns the VkInstance and, with validation on, the debug messenger that counts and
// records every validation message (tests fail when any appears).
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace vkattn {

struct InstanceOptions {
  // Enable VK_LAYER_KHRONOS_validation. Defaults to the VKATTN_VALIDATION environment variable.
  bool validation = false;
  // Further instance extensions (e.g. a window system's surface extensions for a viewer that
  // presents with this instance). Throws Unsupported naming the first one that is missing.
  std::vector<std::string> extensions;
  static InstanceOptions fromEnvironment();
};

class Instance {
 public:
  explicit Instance(const InstanceOptions& options = InstanceOptions::fromEnvironment());
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  VkInstance handle() const noexcept { return m_instance; }
  bool validationEnabled() const noexcept { return m_messenger != VK_NULL_HANDLE; }
  // True when the loader offered VK_KHR_portability_enumeration and the instance enabled it, so
  // that portability drivers (MoltenVK) are listed too.
  bool portabilityEnumeration() const noexcept { return m_portabilityEnumeration; }

  // Validation warnings and errors seen so far (messages are also printed to stderr).
  std::size_t validationMessageCount() const noexcept { return m_messageCount.load(); }
  std::vector<std::string> validationMessages() const;
  // Validation messages seen by every Instance of this process, those already destroyed included
  // (what a command-line tool or a Python session checks before it reports success).
  static std::size_t processValidationMessageCount() noexcept;

  std::vector<VkPhysicalDevice> physicalDevices() const;

 private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT types,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data, void* self);

  VkInstance m_instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT m_messenger = VK_NULL_HANDLE;
  bool m_portabilityEnumeration = false;
  std::atomic<std::size_t> m_messageCount{0};
  mutable std::mutex m_messagesMutex;
  std::vector<std::string> m_messages;
};

}  // namespace vkattn
