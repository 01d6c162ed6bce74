// Bandwidth of the row kernels (softmax, LayerNorm, RMSNorm, RoPE) in GB/s of compulsory traffic
// (input read once, output written once), each verified against the double reference before it
// is timed, and reported as a ratio to a plain vec4 copy of the same bytes in the same process.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "support/error_stats.hpp"
#include "support/reference.hpp"
#include "vkattn/vkattn.hpp"

namespace {

using namespace vkattn;

Context& context() {
  static std::unique_ptr<Context> ctx = std::make_unique<Context>();
  return *ctx;
}

// GB/s of the copy baseline for `bytes` moved (read + write), measured once per size.
double copyGbps(std::size_t bytes) {
  static std::map<std::size_t, double> cache;
  auto it = cache.find(bytes);
  if (it != cache.end()) return it->second;
  Context& ctx = context();
  const int64_t floats = static_cast<int64_t>(bytes / 2 / 4);
  Tensor a = ctx.tensor({floats}), b = ctx.tensor({floats});
  Timing t = timeOnDevice(ctx, [&] { copy(ctx, a, b); }, 20);
  return cache[bytes] = static_cast<double>(bytes) / t.medianNs;
}

void report(benchmark::State& state, const Timing& t, std::size_t bytes) {
  const double gbps = static_cast<double>(bytes) / t.medianNs;
  state.counters["GB/s"] = gbps;
  state.counters["vs_copy"] = gbps / copyGbps(bytes);
}

template <typename Op, typename Ref>
void runRowBench(benchmark::State& state, DType dtype, Op op, Ref reference) {
  Context& ctx = context();
  const int64_t rows = state.range(0), cols = state.range(1);
  auto values = test::randomValues(static_cast<std::size_t>(rows * cols), 7, -3.0f, 3.0f);
  if (dtype == DType::F16) values = test::roundToHalf(values);
  Tensor x = ctx.tensor({rows, cols}, values, dtype), y = ctx.tensor({rows, cols}, dtype);
  op(ctx, x, y);
  const double atol = dtype == DType::F16 ? 2e-3 : 1e-5;
  auto stats = test::compare(y.download(), reference(values, static_cast<std::size_t>(cols)), atol, atol);
  if (stats.failures) {
    state.SkipWithError(("output does not match the reference: " + test::describe(stats)).c_str());
    return;
  }
  state.counters["max_abs_err"] = stats.maxAbs;
  const std::size_t bytes = 2 * x.bytes();
  for (auto _ : state) {
    Timing t = timeOnDevice(ctx, [&] { op(ctx, x, y); }, 10);
    state.SetIterationTime(t.medianNs * 1e-9);
    report(state, t, bytes);
  }
}

void BM_Softmax(benchmark::State& state, DType dtype) {
  runRowBench(
      state, dtype, [](Context& c, const Tensor& x, const Tensor& y) { softmax(c, x, y); },
      [](const std::vector<float>& v, std::size_t cols) { return test::softmaxRef(v, cols, 1.0, nullptr, {}); });
}

void BM_LayerNorm(benchmark::State& state, DType dtype) {
  runRowBench(
      state, dtype, [](Context& c, const Tensor& x, const Tensor& y) { layerNorm(c, x, y); },
      [](const std::vector<float>& v, std::size_t cols) { return test::layerNormRef(v, cols, nullptr, nullptr, 1e-5); });
}

void BM_RmsNorm(benchmark::State& state, DType dtype) {
  runRowBench(
      state, dtype, [](Context& c, const Tensor& x, const Tensor& y) { rmsNorm(c, x, y); },
      [](const std::vector<float>& v, std::size_t cols) { return test::rmsNormRef(v, cols, nullptr, 1e-6); });
}

void BM_Rope(benchmark::State& state, DType dtype) {
  Context& ctx = context();
  const int64_t B = 1, H = state.range(0), L = state.range(1), D = state.range(2);
  auto values = test::randomValues(static_cast<std::size_t>(B * H * L * D), 9);
  if (dtype == DType::F16) values = test::roundToHalf(values);
  Tensor x = ctx.tensor({B, H, L, D}, values, dtype), y = ctx.tensor({B, H, L, D}, dtype);
  rope(ctx, x, y);
  std::vector<int64_t> positions(static_cast<std::size_t>(L));
  for (int64_t l = 0; l < L; ++l) positions[static_cast<std::size_t>(l)] = l;
  auto stats = test::compare(y.download(), test::ropeRef(values, B, H, L, D, D, false, 10000.0, positions),
                             dtype == DType::F16 ? 2e-3 : 2e-6, 0.0);
  if (stats.failures) {
    state.SkipWithError(("output does not match the reference: " + test::describe(stats)).c_str());
    return;
  }
  state.counters["max_abs_err"] = stats.maxAbs;
  for (auto _ : state) {
    Timing t = timeOnDevice(ctx, [&] { rope(ctx, x, y); }, 10);
    state.SetIterationTime(t.medianNs * 1e-9);
    report(state, t, 2 * x.bytes());
  }
}

void rowShapes(benchmark::internal::Benchmark* b) {
  b->Args({4096, 1024})->Args({1024, 4096})->Args({64, 65536})->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

BENCHMARK_CAPTURE(BM_Softmax, f32, DType::F32)->Apply(rowShapes);
BENCHMARK_CAPTURE(BM_Softmax, f16, DType::F16)->Apply(rowShapes);
BENCHMARK_CAPTURE(BM_LayerNorm, f32, DType::F32)->Apply(rowShapes);
BENCHMARK_CAPTURE(BM_LayerNorm, f16, DType::F16)->Apply(rowShapes);
BENCHMARK_CAPTURE(BM_RmsNorm, f32, DType::F32)->Apply(rowShapes);
BENCHMARK_CAPTURE(BM_RmsNorm, f16, DType::F16)->Apply(rowShapes);
BENCHMARK_CAPTURE(BM_Rope, f32, DType::F32)->Args({32, 1024, 128})->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Rope, f16, DType::F16)->Args({32, 1024, 128})->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
