#include "vkattn/core/timing.hpp"

#include <algorithm>
#include <vector>

#include "vkattn/core/error.hpp"

namespace vkattn {

Timing timeOnDevice(Context& ctx, const std::function<void()>& op, int runs, int warmup) {
  if (runs < 1) throw InvalidArgument("runs", "must be >= 1");
  {
    Batch batch(ctx);
    for (int i = 0; i < warmup; ++i) op();
    batch.submit();
  }
  std::vector<double> samples;
  // One submission per 100 runs keeps within the recorder's timestamp slots.
  for (int done = 0; done < runs;) {
    const int chunk = std::min(runs - done, 100);
    Batch batch(ctx);
    std::vector<uint32_t> stamps;
    stamps.push_back(batch.timestamp());
    for (int i = 0; i < chunk; ++i) {
      op();
      stamps.push_back(batch.timestamp());
    }
    batch.submit();
    for (int i = 0; i < chunk; ++i) samples.push_back(batch.elapsedNs(stamps[i], stamps[i + 1]));
    done += chunk;
  }
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples.front(), runs};
}

}  // namespace vkattn
