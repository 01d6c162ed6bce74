#include "vkattn/core/fault_injection.hpp"

#include <array>
#include <mutex>

namespace vkattn {
namespace {

struct Fault {
  uint64_t countdown = 0;  // 0: none armed
  VkResult result = VK_SUCCESS;
  uint64_t repeats = 0;  // further consecutive calls that fail after the first
};

std::mutex g_mutex;
std::array<Fault, 3> g_faults;

}  // namespace

void injectFault(FaultSite site, uint64_t nth, VkResult result, uint64_t count) {
  std::lock_guard lock(g_mutex);
  g_faults[static_cast<std::size_t>(site)] = {nth, result, count > 0 ? count - 1 : 0};
}

void clearFaults() noexcept {
  std::lock_guard lock(g_mutex);
  g_faults = {};
}

namespace detail {

std::optional<VkResult> takeInjectedFault(FaultSite site) noexcept {
  std::lock_guard lock(g_mutex);
  Fault& fault = g_faults[static_cast<std::size_t>(site)];
  if (fault.countdown == 0 || --fault.countdown > 0) return std::nullopt;
  if (fault.repeats > 0) {  // the next call fails too
    --fault.repeats;
    fault.countdown = 1;
  }
  return fault.result;
}

}  // namespace detail
}  // namespace vkattn
