// Dense layer throughput in GFLOP/s (2·M·N·K), each case verified against the double reference
// first (worst error as a fraction of the documented tolerance), and reported as a ratio to the
// naive one-output-per-invocation kernel timed in the same process; then the elementwise ops
// and the embedding lookup in GB/s of compulsory traffic, as a ratio to a vec4 copy.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <tuple>

#include "support/error_stats.hpp"
#include "support/linear_reference.hpp"
#include "support/reference.hpp"
#include "vkattn/vkattn.hpp"

namespace {

using namespace vkattn;

Context& context() {
  static std::unique_ptr<Context> ctx = std::make_unique<Context>();
  return *ctx;
}

struct LinearProblem {
  Tensor x, w, b, y;
  test::MatmulRef ref;
};

LinearProblem makeProblem(int64_t m, int64_t n, int64_t k, DType dtype) {
  Context& ctx = context();
  auto x = test::randomValues(static_cast<std::size_t>(m * k), 1), w = test::randomValues(static_cast<std::size_t>(n * k), 2);
  auto b = test::randomValues(static_cast<std::size_t>(n), 3);
  if (dtype == DType::F16) x = test::roundToHalf(x), w = test::roundToHalf(w), b = test::roundToHalf(b);
  LinearProblem p{ctx.tensor({m, k}, x, dtype), ctx.tensor({n, k}, w, dtype), ctx.tensor({n}, b, dtype),
                  ctx.tensor({m, n}, dtype), {}};
  p.ref = test::linearRef(x, w, static_cast<std::size_t>(m), static_cast<std::size_t>(n), static_cast<std::size_t>(k),
                          &b, Activation::Gelu, nullptr);
  return p;
}

double timeLinear(LinearProblem& p, MatmulVariant variant) {
  Context& ctx = context();
  LinearOptions options{.bias = p.b.view(), .activation = Activation::Gelu, .variant = variant};
  return timeOnDevice(ctx, [&] { linear(ctx, p.x, p.w, p.y, options); }, 10).medianNs;
}

// Nanoseconds of the naive kernel per (shape, dtype), measured once.
double naiveNs(int64_t m, int64_t n, int64_t k, DType dtype) {
  static std::map<std::tuple<int64_t, int64_t, int64_t, DType>, double> cache;
  const auto key = std::make_tuple(m, n, k, dtype);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  LinearProblem p = makeProblem(m, n, k, dtype);
  return cache[key] = timeLinear(p, MatmulVariant::Naive);
}

void BM_Linear(benchmark::State& state, MatmulVariant variant, DType dtype) {
  Context& ctx = context();
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  LinearProblem p = makeProblem(m, n, k, dtype);
  try {
    linear(ctx, p.x, p.w, p.y, {.bias = p.b.view(), .activation = Activation::Gelu, .variant = variant});
  } catch (const Unsupported& e) {  // the cooperative-matrix kernel on a device without it
    state.SkipWithError(e.what());
    return;
  }
  const bool f16 = dtype == DType::F16;
  const auto stats = test::compareDot(p.y.download(), p.ref, f16 ? 1e-3 : 1e-5, f16 ? 1e-3 : 1e-5, 2e-7);
  if (stats.failures) {
    state.SkipWithError(("output does not match the reference: " + test::describe(stats)).c_str());
    return;
  }
  state.counters["max_abs_err"] = stats.maxAbs;
  state.counters["err/tol"] = stats.worstRatio;
  const double flops = 2.0 * static_cast<double>(m * n * k);
  for (auto _ : state) {
    const double ns = timeLinear(p, variant);
    state.SetIterationTime(ns * 1e-9);
    state.counters["GFLOP/s"] = flops / ns;
    state.counters["vs_naive"] = naiveNs(m, n, k, dtype) / ns;
  }
}

void linearShapes(benchmark::internal::Benchmark* b) {
  b->Args({512, 512, 512})->Args({32, 128, 128})->Args({32, 256, 128})->Args({32, 384, 128})->Args({1, 384, 128});
  b->Args({1024, 1024, 1024})->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

BENCHMARK_CAPTURE(BM_Linear, rows_f32, MatmulVariant::Rows, DType::F32)->Apply(linearShapes);
BENCHMARK_CAPTURE(BM_Linear, tiled_f32, MatmulVariant::Tiled, DType::F32)->Apply(linearShapes);
BENCHMARK_CAPTURE(BM_Linear, naive_f32, MatmulVariant::Naive, DType::F32)->Apply(linearShapes);
BENCHMARK_CAPTURE(BM_Linear, rows_f16, MatmulVariant::Rows, DType::F16)->Apply(linearShapes);
BENCHMARK_CAPTURE(BM_Linear, tiled_f16, MatmulVariant::Tiled, DType::F16)->Apply(linearShapes);
BENCHMARK_CAPTURE(BM_Linear, coopmat_f16, MatmulVariant::Coopmat, DType::F16)->Apply(linearShapes);

// GB/s of a vec4 copy moving `bytes` (read + write), measured once per size.
double copyGbps(std::size_t bytes) {
  static std::map<std::size_t, double> cache;
  if (auto it = cache.find(bytes); it != cache.end()) return it->second;
  Context& ctx = context();
  const int64_t floats = static_cast<int64_t>(bytes / 2 / 4 / 4 * 4);
  Tensor a = ctx.tensor({floats}), b = ctx.tensor({floats});
  return cache[bytes] = static_cast<double>(bytes) / timeOnDevice(ctx, [&] { copy(ctx, a, b); }, 20).medianNs;
}

enum class Op { Gelu, SwiGlu, Add, Embedding };

void BM_Elementwise(benchmark::State& state, Op op) {
  Context& ctx = context();
  const int64_t rows = state.range(0), cols = state.range(1);
  const auto count = static_cast<std::size_t>(rows * cols);
  auto x = test::randomValues(count, 5, -4.0f, 4.0f), u = test::randomValues(count, 6);
  Tensor tx = ctx.tensor({rows, cols}, x), tu = ctx.tensor({rows, cols}, u), y = ctx.tensor({rows, cols});
  std::vector<int32_t> ids(static_cast<std::size_t>(rows));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>((i * 7919) % static_cast<std::size_t>(rows));
  Tensor tids = Tensor::fromHostInt(ctx.device(), {rows}, ids);
  std::function<void()> run;
  std::vector<double> ref(count);
  std::size_t bytes = 0;
  if (op == Op::Gelu) {
    run = [&] { activation(ctx, Activation::Gelu, tx, y); };
    for (std::size_t i = 0; i < count; ++i) ref[i] = test::activationRef(x[i], Activation::Gelu);
    bytes = 2 * count * 4;
  } else if (op == Op::SwiGlu) {
    run = [&] { swiglu(ctx, tx, tu, y); };
    for (std::size_t i = 0; i < count; ++i) ref[i] = test::activationRef(x[i], Activation::Silu) * u[i];
    bytes = 3 * count * 4;
  } else if (op == Op::Add) {
    run = [&] { add(ctx, tx, tu, y); };
    for (std::size_t i = 0; i < count; ++i) ref[i] = static_cast<float>(x[i] + u[i]);
    bytes = 3 * count * 4;
  } else {
    // The table is tx itself ([rows, cols]: rows ids into `rows` rows).
    run = [&] { embedding(ctx, tx, tids, y); };
    for (std::size_t t = 0; t < ids.size(); ++t)
      for (std::size_t d = 0; d < static_cast<std::size_t>(cols); ++d)
        ref[t * static_cast<std::size_t>(cols) + d] = x[static_cast<std::size_t>(ids[t]) * static_cast<std::size_t>(cols) + d];
    bytes = 2 * count * 4;
  }
  run();
  const auto stats = test::compare(y.download(), ref, 1e-6, 1e-5);
  if (stats.failures) {
    state.SkipWithError(("output does not match the reference: " + test::describe(stats)).c_str());
    return;
  }
  state.counters["max_abs_err"] = stats.maxAbs;
  for (auto _ : state) {
    const Timing t = timeOnDevice(ctx, run, 10);
    state.SetIterationTime(t.medianNs * 1e-9);
    const double gbps = static_cast<double>(bytes) / t.medianNs;
    state.counters["GB/s"] = gbps;
    state.counters["vs_copy"] = gbps / copyGbps(bytes);
  }
}

void elementwiseShapes(benchmark::internal::Benchmark* b) {
  b->Args({4096, 1024})->Args({32, 512})->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

BENCHMARK_CAPTURE(BM_Elementwise, gelu, Op::Gelu)->Apply(elementwiseShapes);
BENCHMARK_CAPTURE(BM_Elementwise, swiglu, Op::SwiGlu)->Apply(elementwiseShapes);
BENCHMARK_CAPTURE(BM_Elementwise, add, Op::Add)->Apply(elementwiseShapes);
BENCHMARK_CAPTURE(BM_Elementwise, embedding, Op::Embedding)->Apply(elementwiseShapes);

}  // namespace

BENCHMARK_MAIN();
