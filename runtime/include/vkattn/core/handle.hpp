// Move-only owners of Vulkan objects: each frees its handle exactly once in its destructor, so no
// constructor or error path frees by hand. DeviceHandle covers objects made from a VkDevice,
// InstanceHandle those made from a VkInstance; OwnedDevice is the VkDevice itself. The handles of
// drawing (images, render passes, swapchains, surfaces) are the viewer's own.
#pragma once

#include <vulkan/vulkan.h>

#include <utility>

namespace vkattn {

// An object made from a parent (a VkDevice or a VkInstance) and freed through it.
template <typename Parent, typename T, void (*Destroy)(Parent, T, const VkAllocationCallbacks*)>
class ChildHandle {
 public:
  ChildHandle() = default;
  ChildHandle(Parent parent, T handle) noexcept : m_parent(parent), m_handle(handle) {}
  ~ChildHandle() { reset(); }
  ChildHandle(const ChildHandle&) = delete;
  ChildHandle& operator=(const ChildHandle&) = delete;
  ChildHandle(ChildHandle&& other) noexcept
      : m_parent(other.m_parent), m_handle(std::exchange(other.m_handle, VK_NULL_HANDLE)) {}
  ChildHandle& operator=(ChildHandle&& other) noexcept {
    if (this != &other) {
      reset();
      m_parent = other.m_parent;
      m_handle = std::exchange(other.m_handle, VK_NULL_HANDLE);
    }
    return *this;
  }

  T get() const noexcept { return m_handle; }
  explicit operator bool() const noexcept { return m_handle != VK_NULL_HANDLE; }
  // Frees the object now (no-op when empty).
  void reset() noexcept {
    if (m_handle != VK_NULL_HANDLE) Destroy(m_parent, m_handle, nullptr);
    m_handle = VK_NULL_HANDLE;
  }
  // For vkCreate*: frees what is held, then returns where the new handle is to be written.
  T* receive(Parent parent) noexcept {
    reset();
    m_parent = parent;
    return &m_handle;
  }

 private:
  Parent m_parent = VK_NULL_HANDLE;
  T m_handle = VK_NULL_HANDLE;
};

template <typename T, void (*Destroy)(VkDevice, T, const VkAllocationCallbacks*)>
using DeviceHandle = ChildHandle<VkDevice, T, Destroy>;
template <typename T, void (*Destroy)(VkInstance, T, const VkAllocationCallbacks*)>
using InstanceHandle = ChildHandle<VkInstance, T, Destroy>;

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
