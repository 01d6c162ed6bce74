// `vkattn bench <kernel>`: one kernel at a chosen shape, verified, then timed beside its baseline.
#include <cstdio>
#include <fstream>

#include "arguments.hpp"
#include "commands.hpp"
#include "measurements.hpp"
#include "vkattn/error.hpp"
#include "vkattn/json_text.hpp"

namespace vkattn::cli {

int benchCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  Arguments a(args, {"--rows", "--cols", "--m", "--n", "--k", "--batch", "--heads", "--len", "--queries", "--dim", "--json"},
              {"--f16", "--causal"});
  if (a.positional().size() != 1)
    throw InvalidArgument("kernel", "expected one of softmax, layer_norm, rms_norm, rope, attention, linear");
  const std::string kernel = a.positional()[0];
  auto count = [&](const std::string& flag, double fallback) {
    const double v = a.number(flag, fallback);
    if (v < 1 || v != static_cast<int64_t>(v)) throw InvalidArgument(flag, "must be a positive integer");
    return static_cast<int64_t>(v);
  };
  const DType dtype = a.has("--f16") ? DType::F16 : DType::F32;
  Context ctx({.device = options.device});
  Measurement m;
  if (kernel == "rope") {
    m = measureRope(ctx, count("--batch", 1), count("--heads", 16), count("--len", 1024), count("--dim", 128), dtype);
  } else if (kernel == "attention") {
    const int64_t len = count("--len", 1024);
    m = measureAttention(ctx, count("--batch", 1), count("--heads", 8), count("--queries", static_cast<double>(len)), len,
                         count("--dim", 64), a.has("--causal"), dtype);
  } else if (kernel == "linear") {
    m = measureLinear(ctx, count("--m", 512), count("--n", 512), count("--k", 512), dtype);
  } else {
    m = measureRowOp(ctx, kernel, count("--rows", 4096), count("--cols", 1024), dtype);
  }
  std::printf("device: %s\n", ctx.info().name.c_str());
  printHeader();
  printMeasurement(m);
  if (auto path = a.get("--json")) {
    std::ofstream out(*path);
    if (!out) throw InvalidArgument("--json", "cannot write " + *path);
    const bool ran = m.baselineSkipped.empty();
    out << "{\"device\": " << jsonQuoted(ctx.info().name) << ", \"kernel\": " << jsonQuoted(m.kernel)
        << ", \"variant\": " << jsonQuoted(m.variant) << ", \"shape\": " << jsonQuoted(m.shape)
        << ", \"checked\": " << jsonQuoted(m.checked) << ", \"max_abs_error\": " << jsonNumber(m.error.maxAbs)
        << ", \"tolerance\": " << jsonNumber(m.tolerance) << ", \"passed\": " << (m.error.failures ? "false" : "true")
        << ", \"median_ms\": " << jsonNumber(m.medianMs) << ", \"unit\": " << jsonQuoted(m.unit) << ", \"rate\": " << jsonNumber(m.rate)
        << ", \"baseline\": " << jsonQuoted(m.baseline) << ", \"baseline_rate\": ";
    if (ran)
      out << jsonNumber(m.baselineRate) << ", \"ratio\": " << jsonNumber(m.rate / m.baselineRate);
    else
      out << "null, \"ratio\": null, \"baseline_skipped\": " << jsonQuoted(m.baselineSkipped);
    out << "}\n";
  }
  return m.error.failures ? 1 : 0;
}

}  // namespace vkattn::cli
