// Owners of the Vulkan objects only drawing needs (images and their views, render passes,
// framebuffers, semaphores, the swapchain and the window surface), on the runtime's ChildHandle.
#pragma once

#include <vulkan/vulkan.h>

#include "vkattn/core/handle.hpp"

namespace vkattn::viewer {

using ImageHandle = DeviceHandle<VkImage, vkDestroyImage>;
using ImageViewHandle = DeviceHandle<VkImageView, vkDestroyImageView>;
using RenderPassHandle = DeviceHandle<VkRenderPass, vkDestroyRenderPass>;
using FramebufferHandle = DeviceHandle<VkFramebuffer, vkDestroyFramebuffer>;
using SemaphoreHandle = DeviceHandle<VkSemaphore, vkDestroySemaphore>;
using SwapchainHandle = DeviceHandle<VkSwapchainKHR, vkDestroySwapchainKHR>;

using SurfaceHandle = InstanceHandle<VkSurfaceKHR, vkDestroySurfaceKHR>;

}  // namespace vkattn::viewer
