#include "vkattn/core/dispatch_trace.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vkattn {

bool DispatchTrace::requested() {
  const char* value = std::getenv("VKATTN_DISPATCH_TRACE");
  return value && *value && std::strcmp(value, "0") != 0;
}

DispatchTrace::DispatchTrace(const Device& device) : m_pool(device, kCapacity) {}

DispatchTrace::~DispatchTrace() {
  if (m_totals.empty()) return;
  std::vector<std::pair<std::string, Totals>> rows(m_totals.begin(), m_totals.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
  double total = 0;
  uint64_t dispatches = 0;
  for (const auto& [module, t] : rows) total += t.ns, dispatches += t.dispatches;
  std::fprintf(stderr, "vkattn dispatch trace: %llu dispatches in %llu submissions, %.3f ms of GPU time%s\n",
               static_cast<unsigned long long>(dispatches), static_cast<unsigned long long>(m_submissions),
               total * 1e-6, m_untimed ? " (some dispatches untimed: more than 4096 in one submission)" : "");
  std::fprintf(stderr, "  %-40s %10s %12s %10s %7s\n", "module", "dispatches", "total us", "mean us", "share");
  for (const auto& [module, t] : rows)
    std::fprintf(stderr, "  %-40s %10llu %12.1f %10.2f %6.1f%%\n", module.c_str(),
                 static_cast<unsigned long long>(t.dispatches), t.ns * 1e-3,
                 t.ns * 1e-3 / static_cast<double>(t.dispatches), 100.0 * t.ns / total);
}

void DispatchTrace::begin(VkCommandBuffer cmd) {
  if (!m_pool.supported()) return;
  m_pool.recordReset(cmd);
  m_pool.record(cmd);
}

void DispatchTrace::after(VkCommandBuffer cmd, const std::string& module) {
  if (!m_pool.supported()) return;
  if (m_pool.used() >= m_pool.capacity()) {
    ++m_untimed;
    return;
  }
  m_pool.record(cmd);
  m_modules.push_back(module);
}

void DispatchTrace::partStarted(VkCommandBuffer cmd) {
  after(cmd, "(waiting for the host)");
}

void DispatchTrace::collect() {
  if (!m_pool.supported() || m_pool.used() == 0) return clear();
  const uint32_t used = m_pool.used();
  m_pool.collect();
  for (uint32_t i = 1; i < used; ++i) {
    Totals& t = m_totals[m_modules[i - 1]];
    ++t.dispatches;
    t.ns += m_pool.elapsedNs(i - 1, i);
  }
  ++m_submissions;
  m_modules.clear();
}

void DispatchTrace::clear() noexcept {
  m_pool.clear();
  m_modules.clear();
}

}  // namespace vkattn
