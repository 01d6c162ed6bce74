// GPU time per kernel, for finding where a workload's time goes on a new device: with
// VKATTN_DISPATCH_TRACE set (to anything but 0), the recorder writes a GPU timestamp before its
// first dispatch and after every dispatch of a submission, and charges each dispatch the time
// since the one before it (its own run and its wait at the barrier that orders it after the
// previous one: the serial GPU time it adds). When the recorder goes away the totals per kernel
// module are printed to stderr, the largest first, with the submissions' GPU time. Where a batch
// is submitted in parts (Recorder::kPartDispatches), the time from a part's last dispatch to the
// next part's start is charged to "(waiting for the host)": the device idle while the host
// records. A submission past the pool's 4096 timestamps is charged only up to them (the table
// says how many went untimed).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vkattn/core/timestamp_pool.hpp"

namespace vkattn {

class DispatchTrace {
 public:
  static constexpr uint32_t kCapacity = 4096;

  // Whether VKATTN_DISPATCH_TRACE asks for a trace.
  static bool requested();

  explicit DispatchTrace(const Device& device);
  ~DispatchTrace();  // prints the table
  DispatchTrace(const DispatchTrace&) = delete;
  DispatchTrace& operator=(const DispatchTrace&) = delete;

  // At the start of a command buffer: resets the pool and writes the first timestamp.
  void begin(VkCommandBuffer cmd);
  // After a dispatch of `module`.
  void after(VkCommandBuffer cmd, const std::string& module);
  // At the start of the next part of a batch submitted in parts.
  void partStarted(VkCommandBuffer cmd);
  // After the submission completed: charges each dispatch, then starts afresh.
  void collect();
  void clear() noexcept;

  struct Totals {
    uint64_t dispatches = 0;
    double ns = 0;
  };
  const std::map<std::string, Totals>& totals() const noexcept { return m_totals; }

 private:
  TimestampPool m_pool;
  std::vector<std::string> m_modules;  // of this submission's timed dispatches, in order
  std::map<std::string, Totals> m_totals;
  uint64_t m_submissions = 0, m_untimed = 0;
};

}  // namespace vkattn
