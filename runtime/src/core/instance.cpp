#include "vkattn/core/instance.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "vkattn/core/vulkan_error.hpp"

namespace vkattn {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
std::atomic<std::size_t> g_processMessageCount{0};

bool layerAvailable(const char* name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const auto& layer : layers)
    if (std::strcmp(layer.layerName, name) == 0) return true;
  return false;
}

bool extensionAvailable(const std::string& name) {
  uint32_t count = 0;
  vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateInstanceExtensionProperties(nullptr, &count, extensions.data());
  for (const auto& extension : extensions)
    if (name == extension.extensionName) return true;
  return false;
}

// The caller's extra extensions, checked first so that a missing one is named rather than
// reported as a bare VK_ERROR_EXTENSION_NOT_PRESENT.
void addRequestedExtensions(const InstanceOptions& options, std::vector<const char*>& extensions) {
  for (const std::string& name : options.extensions) {
    if (!extensionAvailable(name))
      throw Unsupported("instance extension " + name + " is not available from this Vulkan loader");
    bool present = false;
    for (const char* e : extensions) present = present || name == e;
    if (!present) extensions.push_back(name.c_str());
  }
}

bool envFlag(const char* name) {
  const char* value = std::getenv(name);
  return value && *value && std::strcmp(value, "0") != 0;
}

}  // namespace

InstanceOptions InstanceOptions::fromEnvironment() {
  InstanceOptions options;
  options.validation = envFlag("VKATTN_VALIDATION");
  return options;
}

Instance::Instance(const InstanceOptions& options) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vkattn";
  app.pEngineName = "vkattn";
  // 1.3: the cooperative-matrix-2 module is SPIR-V 1.6. Devices of Vulkan 1.2 still run every
  // other module (SPIR-V 1.5); the kernels use no 1.3 feature beyond that.
  app.apiVersion = VK_API_VERSION_1_3;

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  if (options.validation) {
    if (!layerAvailable(kValidationLayer))
      throw Unsupported(
          "VKATTN_VALIDATION is set but VK_LAYER_KHRONOS_validation is not installed "
          "(Debian: apt-get install vulkan-validationlayers)");
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  addRequestedExtensions(options, extensions);
  // Loaders list portability drivers (MoltenVK) only to instances that ask for them.
  m_portabilityEnumeration = extensionAvailable(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
  if (m_portabilityEnumeration && std::none_of(extensions.begin(), extensions.end(), [](const char* e) {
        return std::strcmp(e, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME) == 0;
      }))
    extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);

  VkDebugUtilsMessengerCreateInfoEXT messengerInfo{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messengerInfo.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messengerInfo.pfnUserCallback = &Instance::onMessage;
  messengerInfo.pUserData = this;

  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  if (m_portabilityEnumeration) info.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (options.validation) info.pNext = &messengerInfo;  // also catches instance creation itself
  checkVk(vkCreateInstance(&info, nullptr, &m_instance), "vkCreateInstance");

  if (options.validation) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(m_instance, "vkCreateDebugUtilsMessengerEXT"));
    if (!create) {
      vkDestroyInstance(m_instance, nullptr);
      throw Unsupported("VK_EXT_debug_utils is not available for validation messages");
    }
    VkResult result = create(m_instance, &messengerInfo, nullptr, &m_messenger);
    if (result != VK_SUCCESS) {
      vkDestroyInstance(m_instance, nullptr);
      throw VulkanError("vkCreateDebugUtilsMessengerEXT", result);
    }
  }
}

Instance::~Instance() {
  if (m_messenger != VK_NULL_HANDLE) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(m_instance, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(m_instance, m_messenger, nullptr);
  }
  if (m_instance != VK_NULL_HANDLE) vkDestroyInstance(m_instance, nullptr);
}

std::vector<std::string> Instance::validationMessages() const {
  std::lock_guard lock(m_messagesMutex);
  return m_messages;
}

std::vector<VkPhysicalDevice> Instance::physicalDevices() const {
  uint32_t count = 0;
  checkVk(vkEnumeratePhysicalDevices(m_instance, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  checkVk(vkEnumeratePhysicalDevices(m_instance, &count, devices.data()), "vkEnumeratePhysicalDevices");
  devices.resize(count);
  return devices;
}

std::size_t Instance::processValidationMessageCount() noexcept {
  return g_processMessageCount.load();
}

VKAPI_ATTR VkBool32 VKAPI_CALL Instance::onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data, void* self) {
  auto* instance = static_cast<Instance*>(self);
  std::string text = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error: " : "warning: ";
  text += data && data->pMessage ? data->pMessage : "(no message)";
  std::cerr << "[vkattn validation] " << text << "\n";
  {
    std::lock_guard lock(instance->m_messagesMutex);
    instance->m_messages.push_back(text);
  }
  instance->m_messageCount.fetch_add(1);
  g_processMessageCount.fetch_add(1);
  return VK_FALSE;
}

}  // namespace vkattn
