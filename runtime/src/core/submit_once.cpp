#include "vkattn/core/submit_once.hpp"

#include "vkattn/core/command_context.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn {

void submitOnce(const Device& device, const std::function<void(VkCommandBuffer)>& record) {
  if (device.compileOnly())
    throw Unsupported("a compile-only context runs nothing: no data moves to or from " + device.info().name);
  CommandContext commands(device, false);
  commands.begin();
  record(commands.buffer());
  try {
    commands.submitAndWait();
  } catch (...) {
    std::lock_guard queue(device.queueMutex());
    vkDeviceWaitIdle(device.handle());  // the work may still run when the wait failed: let it end first
    throw;
  }
}

}  // namespace vkattn
