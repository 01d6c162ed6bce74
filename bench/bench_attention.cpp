// Attention throughput in TFLOP/s (4·B·H·Lq·Lk·D, halved for causal), each case verified
// against the double-precision reference first, and reported as a ratio to the project's naive
// three-pass path (S = QKᵀ to memory, softmax, SV) timed in the same process.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>

#include "support/attention_reference.hpp"
#include "support/error_stats.hpp"
#include "support/reference.hpp"
#include "vkattn/vkattn.hpp"

namespace {

using namespace vkattn;

Context& context() {
  static std::unique_ptr<Context> ctx = std::make_unique<Context>();
  return *ctx;
}

struct Case {
  int64_t heads, lq, lk, d;
  bool causal;
  DType dtype;
  AttentionVariant variant;
};

void BM_Attention(benchmark::State& state, Case c) {
  Context& ctx = context();
  const int64_t B = 1, H = c.heads;
  auto q = test::randomValues(B * H * c.lq * c.d, 1), k = test::randomValues(B * H * c.lk * c.d, 2),
       v = test::randomValues(B * H * c.lk * c.d, 3);
  if (c.dtype == DType::F16) {
    q = test::roundToHalf(q);
    k = test::roundToHalf(k);
    v = test::roundToHalf(v);
  }
  Tensor tq = ctx.tensor({B, H, c.lq, c.d}, q, c.dtype), tk = ctx.tensor({B, H, c.lk, c.d}, k, c.dtype),
         tv = ctx.tensor({B, H, c.lk, c.d}, v, c.dtype), out = ctx.tensor({B, H, c.lq, c.d}, c.dtype),
         naiveOut = ctx.tensor({B, H, c.lq, c.d}, c.dtype);
  AttentionOptions options{.causal = c.causal, .alignment = MaskAlignment::BottomRight, .variant = c.variant};
  try {
    attention(ctx, tq, tk, tv, out, options);
  } catch (const Unsupported& e) {  // the cooperative-matrix kernel on a device without it
    state.SkipWithError(e.what());
    return;
  }

  test::AttentionProblem problem;
  problem.batch = B;
  problem.headsQ = problem.headsKv = H;
  problem.lq = c.lq;
  problem.lk = c.lk;
  problem.dk = problem.dv = c.d;
  problem.scale = 1.0 / std::sqrt(static_cast<double>(c.d));
  problem.causal = c.causal;
  problem.bottomRight = true;
  const auto reference = test::attentionRef(problem, q, k, v).out;
  const double tol = c.dtype == DType::F16 ? 2e-3 : 2e-5;
  attention(ctx, tq, tk, tv, out, options);
  auto fused = test::compare(out.download(), reference, tol, tol * 5);
  attentionNaive(ctx, tq, tk, tv, naiveOut, options);
  auto naive = test::compare(naiveOut.download(), reference, tol, tol * 5);
  if (fused.failures || naive.failures) {
    state.SkipWithError(("output does not match the reference: fused " + test::describe(fused) + "; naive " +
                         test::describe(naive)).c_str());
    return;
  }
  double flops = 4.0 * B * H * c.lq * c.lk * c.d;
  if (c.causal) flops /= 2;
  for (auto _ : state) {
    Timing fusedTime = timeOnDevice(ctx, [&] { attention(ctx, tq, tk, tv, out, options); }, 3, 1);
    Timing naiveTime = timeOnDevice(ctx, [&] { attentionNaive(ctx, tq, tk, tv, naiveOut, options); }, 3, 1);
    state.SetIterationTime(fusedTime.medianNs * 1e-9);
    state.counters["GFLOP/s"] = flops / fusedTime.medianNs;
    state.counters["naive_GFLOP/s"] = flops / naiveTime.medianNs;
    state.counters["vs_naive"] = naiveTime.medianNs / fusedTime.medianNs;
    state.counters["max_abs_err"] = fused.maxAbs;
  }
  state.SetLabel(toString(attentionVariantFor(ctx, c.variant, c.lq)));
}

#define VKATTN_ATTENTION_BENCH(name, ...)                                    \
  BENCHMARK_CAPTURE(BM_Attention, name, Case{__VA_ARGS__})                   \
      ->UseManualTime()                                                      \
      ->Iterations(1)                                                        \
      ->Unit(benchmark::kMillisecond)

VKATTN_ATTENTION_BENCH(h8_l1024_d64_f32, 8, 1024, 1024, 64, false, DType::F32, AttentionVariant::Auto);
VKATTN_ATTENTION_BENCH(h8_l1024_d64_causal_f32, 8, 1024, 1024, 64, true, DType::F32, AttentionVariant::Auto);
VKATTN_ATTENTION_BENCH(h8_l1024_d128_f32, 8, 1024, 1024, 128, false, DType::F32, AttentionVariant::Auto);
VKATTN_ATTENTION_BENCH(h8_l1024_d64_f16, 8, 1024, 1024, 64, false, DType::F16, AttentionVariant::Auto);
VKATTN_ATTENTION_BENCH(h8_l1024_d64_tiled_f32, 8, 1024, 1024, 64, false, DType::F32, AttentionVariant::Tiled);
VKATTN_ATTENTION_BENCH(h8_l1024_d64_coopmat_f16, 8, 1024, 1024, 64, false, DType::F16, AttentionVariant::Coopmat);
VKATTN_ATTENTION_BENCH(h8_l1024_d128_coopmat_f16, 8, 1024, 1024, 128, false, DType::F16, AttentionVariant::Coopmat);
VKATTN_ATTENTION_BENCH(decode_h8_lk16384_d128_f32, 8, 1, 16384, 128, true, DType::F32, AttentionVariant::Auto);

}  // namespace

BENCHMARK_MAIN();
