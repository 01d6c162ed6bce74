// Dense layer throughput in GFLOP/s (2·M·N·K), each case verified against the double reference
// first (worst error as a fraction of the tolerance table's), and reported as a ratio to the
// naive one-output-per-invocation kernel timed in the same process (measure/measurements.cpp,
// shared with `vkattn bench linear`); then the elementwise ops
// and the embedding lookup in GB/s of compulsory traffic, as a ratio to a vec4 copy.
#include <functional>
#include <map>

#include "report.hpp"
#include "vkattn/reference/linear_reference.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"
#include "vkattn/vkattn.hpp"

namespace {

using namespace vkattn;

void BM_Linear(benchmark::State& state, MatmulVariant variant, DType dtype) {
  bench::report(state, measure::measureLinear(bench::context(), state.range(0), state.range(1), state.range(2), dtype,
                                              variant, {.kernel = 10, .baseline = 3}));
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
BENCHMARK_CAPTURE(BM_Linear, coopmat2_wg_f16, MatmulVariant::Coopmat2Workgroup, DType::F16)->Apply(linearShapes);

// GB/s of a vec4 copy moving `bytes` (read + write), measured once per size.
double copyGbps(std::size_t bytes) {
  static std::map<std::size_t, double> cache;
  if (auto it = cache.find(bytes); it != cache.end()) return it->second;
  Context& ctx = bench::context();
  const int64_t floats = static_cast<int64_t>(bytes / 2 / 4 / 4 * 4);
  Tensor a = ctx.tensor({floats}), b = ctx.tensor({floats});
  return cache[bytes] = static_cast<double>(bytes) / timeOnDevice(
                                                         ctx, [&] { copy(ctx, a, b); }, 20)
                                                         .medianNs;
}

enum class Op { Gelu, SwiGlu, Add, Embedding };

void BM_Elementwise(benchmark::State& state, Op op) {
  Context& ctx = bench::context();
  const int64_t rows = state.range(0), cols = state.range(1);
  const auto count = static_cast<std::size_t>(rows * cols);
  auto x = reference::randomValues(count, 5, -4.0f, 4.0f), u = reference::randomValues(count, 6);
  Tensor tx = ctx.tensor({rows, cols}, x), tu = ctx.tensor({rows, cols}, u), y = ctx.tensor({rows, cols});
  std::vector<int32_t> ids(static_cast<std::size_t>(rows));
  for (std::size_t i = 0; i < ids.size(); ++i)
    ids[i] = static_cast<int32_t>((i * 7919) % static_cast<std::size_t>(rows));
  Tensor tids = Tensor::fromHostInt(ctx.device(), {rows}, ids);
  std::function<void()> run;
  std::vector<double> ref(count);
  std::size_t bytes = 0;
  if (op == Op::Gelu) {
    run = [&] { activation(ctx, Activation::Gelu, tx, y); };
    for (std::size_t i = 0; i < count; ++i) ref[i] = reference::activationRef(x[i], Activation::Gelu);
    bytes = 2 * count * 4;
  } else if (op == Op::SwiGlu) {
    run = [&] { swiglu(ctx, tx, tu, y); };
    for (std::size_t i = 0; i < count; ++i) ref[i] = reference::activationRef(x[i], Activation::Silu) * u[i];
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
        ref[t * static_cast<std::size_t>(cols) + d] =
            x[static_cast<std::size_t>(ids[t]) * static_cast<std::size_t>(cols) + d];
    bytes = 2 * count * 4;
  }
  run();
  const reference::Tolerance tol = reference::toleranceFor(reference::Checked::Elementwise, DType::F32);
  const auto stats = reference::compare(y.download(), ref, tol.atol, tol.rtol);
  if (stats.failures) {
    state.SkipWithError(("output does not match the reference: " + reference::describe(stats)).c_str());
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
