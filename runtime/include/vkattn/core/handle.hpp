// Move-only owners of Vulkan objects: each frees its handle exactly once in its destructor, so no
// constructor or error path frees by hand. DeviceHandle covers objects made from a VkDevice,
// InstanceHandle those made from a VkInstance (a window surface); OwnedDevice is the VkDevice
// itself.
#pragma once

#include <utility>

#include <vulkan/vulkan.h>

namespace vkattn {

template <typename T, void (*Destroy)(VkDevice, T, const VkAllocationCallbacks*)>
class DeviceHandle {
 public:
  DeviceHandle() = default;
  DeviceHandle(VkDevice device, T handle) noexcept : m_device(device), m_handle(handle) {}
  ~DeviceHandle() { reset(); }
  DeviceHandle(const DeviceHandle&) = delete;
  DeviceHandle& operator=(const DeviceHandle&) = delete;
  DeviceHandle(DeviceHandle&& other) noexcept
      : m_device(other.m_device), m_handle(std::exchange(other.m_handle, VK_NULL_HANDLE)) {}
  DeviceHandle& operator=(DeviceHandle&& other) noexcept {
    if (this != &other) {
      reset();
      m_device = other.m_device;
      m_handle = std::exchange(other.m_handle, VK_NULL_HANDLE);
    }
    return *this;
  }

  T get() const noexcept { return m_handle; }
  explicit operator bool() const noexcept { return m_handle != VK_NULL_HANDLE; }
  // Frees the object now (no-op when empty).
  void reset() noexcept {
    if (m_handle != VK_NULL_HANDLE) Destroy(m_device, m_handle, nullptr);
    m_handle = VK_NULL_HANDLE;
  }
  // For vkCreate*: frees what is held, then returns where the new handle is to be written.
  T* receive(VkDevice device) noexcept {
    reset();
    m_device = device;
    return &m_handle;
  }

 private:
  VkDevice m_device = VK_NULL_HANDLE;
  T m_handle = VK_NULL_HANDLE;
};

using CommandPoolHandle = DeviceHandle<VkCommandPool, vkDestroyCommandPool>;
using FenceHandle = DeviceHandle<VkFence, vkDestroyFence>;
using QueryPoolHandle = DeviceHandle<VkQueryPool, vkDestroyQueryPool>;
using DescriptorPoolHandle = DeviceHandle<VkDescriptorPool, vkDestroyDescriptorPool>;
using DescriptorSetLayoutHandle = DeviceHandle<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>;
using PipelineLayoutHandle = DeviceHandle<VkPipelineLayout, vkDestroyPipelineLayout>;
using PipelineHandle = DeviceHandle<VkPipeline, vkDestroyPipeline>;
using ShaderModuleHandle = DeviceHandle<VkShaderModule, vkDestroyShaderModule>;
using PipelineCacheHandle = DeviceHandle<VkPipelineCache, vkDestroyPipelineCache>;
using BufferHandle = DeviceHandle<VkBuffer, vkDestroyBuffer>;
using MemoryHandle = DeviceHandle<VkDeviceMemory, vkFreeMemory>;
using ImageHandle = DeviceHandle<VkImage, vkDestroyImage>;
using ImageViewHandle = DeviceHandle<VkImageView, vkDestroyImageView>;
using RenderPassHandle = DeviceHandle<VkRenderPass, vkDestroyRenderPass>;
using FramebufferHandle = DeviceHandle<VkFramebuffer, vkDestroyFramebuffer>;
using SemaphoreHandle = DeviceHandle<VkSemaphore, vkDestroySemaphore>;
using SwapchainHandle = DeviceHandle<VkSwapchainKHR, vkDestroySwapchainKHR>;

template <typename T, void (*Destroy)(VkInstance, T, const VkAllocationCallbacks*)>
class InstanceHandle {
 public:
  InstanceHandle() = default;
  ~InstanceHandle() { reset(); }
  InstanceHandle(const InstanceHandle&) = delete;
  InstanceHandle& operator=(const InstanceHandle&) = delete;
  InstanceHandle(InstanceHandle&& other) noexcept
      : m_instance(other.m_instance), m_handle(std::exchange(other.m_handle, VK_NULL_HANDLE)) {}
  InstanceHandle& operator=(InstanceHandle&&) = delete;

  T get() const noexcept { return m_handle; }
  void reset() noexcept {
    if (m_handle != VK_NULL_HANDLE) Destroy(m_instance, m_handle, nullptr);
    m_handle = VK_NULL_HANDLE;
  }
  T* receive(VkInstance instance) noexcept {
    reset();
    m_instance = instance;
    return &m_handle;
  }

 private:
  VkInstance m_instance = VK_NULL_HANDLE;
  T m_handle = VK_NULL_HANDLE;
};

using SurfaceHandle = InstanceHandle<VkSurfaceKHR, vkDestroySurfaceKHR>;

// The logical device: destroyed last, after everything made from it.
class OwnedDevice {
 public:
  OwnedDevice() = default;
  ~OwnedDevice() {
    if (m_device != VK_NULL_HANDLE) vkDestroyDevice(m_device, nullptr);
  }
  OwnedDevice(const OwnedDevice&) = delete;
  OwnedDevice& operator=(const OwnedDevice&) = delete;
  OwnedDevice(OwnedDevice&& other) noexcept : m_device(std::exchange(other.m_device, VK_NULL_HANDLE)) {}
  OwnedDevice& operator=(OwnedDevice&&) = delete;

  VkDevice get() const noexcept { return m_device; }
  VkDevice* receive() noexcept { return &m_device; }

 private:
  VkDevice m_device = VK_NULL_HANDLE;
};

}  // namespace vkattn
