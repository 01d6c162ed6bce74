// The runtime's presentation options that let the viewer share the context's device: a queue
// that also does graphics, a queue-family filter, and extra extensions, each missing one named.
// These make contexts of their own; validation follows VKATTN_VALIDATION like everything else.
#include <gtest/gtest.h>

#include "vkattn/core/context.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

uint32_t familyFlags(const Context& ctx) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(ctx.device().physical(), &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(ctx.device().physical(), &count, families.data());
  return families[ctx.device().queueFamily()].queueFlags;
}

TEST(ContextOptions, GraphicsQueueAndFilterAreHonoured) {
  ContextOptions options;
  options.queueFlags = VK_QUEUE_GRAPHICS_BIT;
  uint32_t seen = 0;
  options.queueFamilyFilter = [&](VkInstance instance, VkPhysicalDevice physical, uint32_t) {
    ++seen;
    return instance != VK_NULL_HANDLE && physical != VK_NULL_HANDLE;
  };
  Context ctx(options);
  EXPECT_GT(seen, 0u);
  EXPECT_TRUE(familyFlags(ctx) & VK_QUEUE_GRAPHICS_BIT);
  EXPECT_TRUE(familyFlags(ctx) & VK_QUEUE_COMPUTE_BIT);
  EXPECT_EQ(ctx.instance().validationMessageCount(), 0u);
}

TEST(ContextOptions, NoUsableQueueIsUnsupported) {
  ContextOptions options;
  options.queueFamilyFilter = [](VkInstance, VkPhysicalDevice, uint32_t) { return false; };
  EXPECT_THROW(Context{options}, Unsupported);
}

TEST(ContextOptions, MissingExtensionsAreNamed) {
  ContextOptions device;
  device.deviceExtensions = {"VK_VKATTN_no_such_device_extension"};
  try {
    Context ctx(device);
    FAIL() << "expected Unsupported";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("VK_VKATTN_no_such_device_extension"), std::string::npos) << e.what();
  }
  ContextOptions instance;
  instance.instanceExtensions = {"VK_VKATTN_no_such_instance_extension"};
  try {
    Context ctx(instance);
    FAIL() << "expected Unsupported";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("VK_VKATTN_no_such_instance_extension"), std::string::npos) << e.what();
  }
}

TEST(ContextOptions, SwapchainExtensionCanBeEnabled) {
  ContextOptions options;
  options.deviceExtensions = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
  options.instanceExtensions = {VK_KHR_SURFACE_EXTENSION_NAME};
  Context ctx(options);
  EXPECT_NE(ctx.device().handle(), VK_NULL_HANDLE);
}

}  // namespace
}  // namespace vkattn
