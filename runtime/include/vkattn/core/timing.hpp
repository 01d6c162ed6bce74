// GPU timing of recorded work: runs an op several times in one submission between timestamps
// and reports the median time per run. Used by the benchmarks and the CLI.
#pragma once

#include <functional>

#include "vkattn/core/context.hpp"

namespace vkattn {

struct Timing {
  double medianNs = 0.0;
  double minNs = 0.0;
  int runs = 0;
};

// Records `op` `runs` times (each between two timestamps) after `warmup` untimed runs, in one
// batch per sample. `op` must only record work (ops called inside a Batch do).
Timing timeOnDevice(Context& ctx, const std::function<void()>& op, int runs = 10, int warmup = 2);

}  // namespace vkattn
