#include "vkattn/core/fault_injection.hpp"

#include <array>
#include <mutex>

namespace vkattn {
namespace {

struct Fault {
  uint64_t countdown = 0;  // 0: none armed
  VkResult result = VK_SUCCESS;
};

std::mutex g_mutex;
std::array<Fault, 2> g_faults;

}  // namespace

void injectFault(FaultSite site, uint64_t nth, VkResult result) {
  std::lock_guard lock(g_mutex);
  g_faults[static_cast<std::size_t>(site)] = {nth, result};
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
  return fault.result;
}

}  // namespace detail
}  // namespace vkattn
