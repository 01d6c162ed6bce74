// `vkattn demo`: each kernel on a sample, checked against the double-precision reference and
// timed against its baseline, on the chosen device.
#include <iostream>

#include "commands.hpp"
#include "measurements.hpp"

namespace vkattn::cli {

int demoCommand(const CommonOptions& options) {
  Context ctx({.device = options.device});
  std::cout << "device: " << ctx.info().name << " (" << toString(ctx.info().kind) << "), kernel profile "
            << toString(ctx.profile()) << "\n\n";
  std::vector<Measurement> rows;
  printHeader();
  auto add = [&](Measurement m) {
    printMeasurement(m);
    rows.push_back(std::move(m));
  };
  for (DType dtype : {DType::F32, DType::F16}) {
    for (const char* kernel : {"softmax", "layer_norm", "rms_norm"}) add(measureRowOp(ctx, kernel, 2048, 1024, dtype));
    add(measureRope(ctx, 1, 16, 512, 128, dtype));
  }
  add(measureAttention(ctx, 1, 8, 512, 512, 64, true, DType::F32));
  add(measureAttention(ctx, 1, 8, 1, 4096, 64, true, DType::F32));
  int failures = 0;
  for (const auto& r : rows) failures += r.error.failures ? 1 : 0;
  std::cout << "\n" << rows.size() - failures << " passed, " << failures << " failed\n";
  return failures ? 1 : 0;
}

}  // namespace vkattn::cli
