// Fault injection, for tests of what vkattn does when the driver fails: the N-th later call at a
// site returns the given VkResult instead of doing its work, once. Process-wide; off unless set.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>

namespace vkattn {

enum class FaultSite {
  MemoryAllocation,  // vkAllocateMemory, for every buffer and tensor
  QueueSubmit,       // vkQueueSubmit, for every submission
  MemoryMapping,     // vkMapMemory, for every host-visible buffer
};

// Makes the `nth` (1 = the next) call at `site` and the `count - 1` calls after it fail with
// `result`.
void injectFault(FaultSite site, uint64_t nth, VkResult result, uint64_t count = 1);
void clearFaults() noexcept;

namespace detail {
// Called by the runtime at each site: the injected result when this call is the chosen one.
std::optional<VkResult> takeInjectedFault(FaultSite site) noexcept;
}  // namespace detail

}  // namespace vkattn
