// One-shot command submission outside a Recorder: uploads, readbacks through staging, image
// set-up. Records into a fresh command buffer, submits on the device's queue and waits.
#pragma once

#include <vulkan/vulkan.h>

#include <functional>

namespace vkattn {

class Device;

void submitOnce(const Device& device, const std::function<void(VkCommandBuffer)>& record);

}  // namespace vkattn
