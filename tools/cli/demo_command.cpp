// `vkattn demo`: each kernel on a sample, checked against the double-precision reference and
// timed against a plain copy of the same bytes, on the chosen device.
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "support/attention_reference.hpp"
#include "support/error_stats.hpp"
#include "support/reference.hpp"
#include "vkattn/vkattn.hpp"

namespace vkattn::cli {
namespace {

struct DemoRow {
  std::string kernel, shape;
  test::ErrorStats error;
  double tolerance = 0.0;
  double gbps = 0.0, copyGbps = 0.0;
};

void printRow(const DemoRow& r) {
  std::printf("%-18s %-20s %10.2e %10.1e  %-4s %8.2f %8.2f %7.2fx\n", r.kernel.c_str(), r.shape.c_str(), r.error.maxAbs,
              r.tolerance, r.error.failures ? "FAIL" : "ok", r.gbps, r.copyGbps, r.gbps / r.copyGbps);
}

double copyGbps(Context& ctx, std::size_t bytes) {
  const int64_t floats = static_cast<int64_t>(bytes / 8);
  Tensor a = ctx.tensor({floats}), b = ctx.tensor({floats});
  return static_cast<double>(bytes) / timeOnDevice(ctx, [&] { copy(ctx, a, b); }).medianNs;
}

DemoRow measure(Context& ctx, const std::string& kernel, const std::string& shape, const Tensor& x, const Tensor& y,
                const std::function<void()>& op, const std::vector<double>& reference, double tolerance) {
  DemoRow row{kernel, shape};
  op();
  row.error = test::compare(y.download(), reference, tolerance, tolerance);
  row.tolerance = tolerance;
  const std::size_t bytes = x.bytes() + y.bytes();
  row.gbps = static_cast<double>(bytes) / timeOnDevice(ctx, op).medianNs;
  row.copyGbps = copyGbps(ctx, bytes);
  return row;
}

// Causal self-attention, B=1 H=8 L=512 D=64 f32: reported in GFLOP/s, against the naive path.
DemoRow attentionRow(Context& ctx) {
  const int64_t H = 8, L = 512, D = 64;
  auto q = test::randomValues(H * L * D, 4), k = test::randomValues(H * L * D, 5), v = test::randomValues(H * L * D, 6);
  Tensor tq = ctx.tensor({1, H, L, D}, q), tk = ctx.tensor({1, H, L, D}, k), tv = ctx.tensor({1, H, L, D}, v);
  Tensor out = ctx.tensor({1, H, L, D}), naive = ctx.tensor({1, H, L, D});
  const AttentionOptions options{.causal = true};
  test::AttentionProblem problem;
  problem.headsQ = problem.headsKv = H;
  problem.lq = problem.lk = L;
  problem.dk = problem.dv = D;
  problem.scale = 0.125;
  problem.causal = true;
  DemoRow row{"attention causal", "[1, 8, 512, 64]"};
  attention(ctx, tq, tk, tv, out, options);
  row.tolerance = 2e-5;
  row.error = test::compare(out.download(), test::attentionRef(problem, q, k, v).out, 2e-5, 1e-4);
  const double flops = 4.0 * H * L * L * D / 2;
  // GFLOP/s in the speed columns; the baseline is the naive three-pass path.
  row.gbps = flops / timeOnDevice(ctx, [&] { attention(ctx, tq, tk, tv, out, options); }, 3).medianNs;
  row.copyGbps = flops / timeOnDevice(ctx, [&] { attentionNaive(ctx, tq, tk, tv, naive, options); }, 3).medianNs;
  return row;
}

}  // namespace

int demoCommand(const CommonOptions& options) {
  Context ctx({.device = options.device});
  std::cout << "device: " << ctx.info().name << " (" << toString(ctx.info().kind) << "), kernel profile "
            << toString(ctx.profile()) << "\n\n";
  std::printf("%-18s %-20s %10s %10s  %-4s %8s %8s %8s\n", "kernel", "shape", "max|err|", "tolerance", "", "GB/s",
              "copy", "vs copy");
  std::vector<DemoRow> rows;
  const int64_t R = 2048, C = 1024;
  for (DType dtype : {DType::F32, DType::F16}) {
    const bool half = dtype == DType::F16;
    const std::string suffix = half ? " f16" : " f32";
    auto values = test::randomValues(R * C, 1, -4.0f, 4.0f);
    if (half) values = test::roundToHalf(values);
    Tensor x = ctx.tensor({R, C}, values, dtype), y = ctx.tensor({R, C}, dtype);
    const std::string shape = toString(Shape{R, C});
    rows.push_back(measure(ctx, "softmax" + suffix, shape, x, y, [&] { softmax(ctx, x, y, {.scale = 0.125f}); },
                           test::softmaxRef(values, C, 0.125, nullptr, {}), half ? 1e-3 : 1e-5));
    printRow(rows.back());
    rows.push_back(measure(ctx, "layer_norm" + suffix, shape, x, y, [&] { layerNorm(ctx, x, y); },
                           test::layerNormRef(values, C, nullptr, nullptr, 1e-5), half ? 4e-3 : 2e-5));
    printRow(rows.back());
    rows.push_back(measure(ctx, "rms_norm" + suffix, shape, x, y, [&] { rmsNorm(ctx, x, y); },
                           test::rmsNormRef(values, C, nullptr, 1e-6), half ? 4e-3 : 2e-5));
    printRow(rows.back());

    const int64_t B = 1, H = 16, L = 512, D = 128;
    auto q = test::randomValues(B * H * L * D, 2);
    if (half) q = test::roundToHalf(q);
    Tensor tq = ctx.tensor({B, H, L, D}, q, dtype), tr = ctx.tensor({B, H, L, D}, dtype);
    std::vector<int64_t> positions(L);
    for (int64_t l = 0; l < L; ++l) positions[l] = l;
    rows.push_back(measure(ctx, "rope" + suffix, "[1, 16, 512, 128]", tq, tr, [&] { rope(ctx, tq, tr); },
                           test::ropeRef(q, B, H, L, D, D, false, 10000.0, positions), half ? 2e-3 : 2e-6));
    printRow(rows.back());
  }
  rows.push_back(attentionRow(ctx));
  printRow(rows.back());
  int failures = 0;
  for (const auto& r : rows) failures += r.error.failures ? 1 : 0;
  std::cout << "\n(speed columns: GB/s vs a copy kernel; for attention, GFLOP/s vs the naive 3-pass path)\n"
            << rows.size() - failures << " passed, " << failures << " failed\n";
  return failures ? 1 : 0;
}

}  // namespace vkattn::cli
