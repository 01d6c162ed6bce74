// linear() with weights in ggml's block formats against F16 weights, in one process: for decode
// (M = 1) and prompt (M = 128) shapes, every case is first checked against the double reference
// over the host-decoded weights (the tolerance tests/test_quantized_linear.cpp enforces), then
// timed; it reports GB/s of weight bytes read, GFLOP/s (2·M·N·K), and the speed ratio to the F16
// weights (x, W and y f16, the float matmul kernels) at the same shape. Block formats take f32 x.
// At M = 1 the integer-dot matrix-vector kernel (x rounded to 8 bits; its tolerance adds that
// rounding) is timed too, with its speed ratio to the float matrix-vector kernel. For prompts the
// other weight kernels (the weights dequantized first, then the float product; the workgroup-scope
// cooperative-matrix-2 kernel, where the device has it, x and the weights rounded to f16: its
// reference rounds them too, with the f16 linear tolerance) are timed against the tiled kernel.
#include <map>
#include <string>
#include <tuple>

#include "report.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/reference/linear_reference.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"
#include "vkattn/vkattn.hpp"

namespace {

using namespace vkattn;

struct Run {
  double ns = 0.0;
  std::string error;  // empty when the output matched the reference
  double worstRatio = 0.0;
};

// One verified, timed linear() of M x K by [N, K] weights stored as `format` (F16: x, y f16 too)
// through `kernel`.
Run timeLinear(int64_t m, int64_t n, int64_t k, DType format, WeightKernel kernel = WeightKernel::Auto) {
  Context& ctx = bench::context();
  const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
  std::vector<float> x = reference::randomValues(M * K, 11), w = reference::randomValues(N * K, 12);
  const bool f16 = format == DType::F16;
  if (f16) {
    x = reference::roundToHalf(x);
    w = reference::roundToHalf(w);
  }
  const DType activations = f16 ? DType::F16 : DType::F32;
  Tensor tx = ctx.tensor({m, k}, x, activations), tw = ctx.tensor({n, k}, format), ty = ctx.tensor({m, n}, activations);
  const std::vector<std::byte> bytes = encodeValues(format, w);
  tw.uploadBytes(bytes.data(), bytes.size());
  const std::vector<float> decoded = decodeValues(format, bytes, n * k);
  auto run = [&] { linear(ctx, tx, tw, ty, {.weightKernel = kernel}); };
  try {
    run();
  } catch (const Unsupported& e) {
    return Run{.error = e.what()};
  }
  const bool halves = kernel == WeightKernel::Coopmat2Workgroup;  // its products take f16 operands
  reference::MatmulRef ref = halves ? reference::linearRef(reference::roundToHalf(x), reference::roundToHalf(decoded),
                                                           M, N, K, nullptr, Activation::None, nullptr)
                                    : reference::linearRef(x, decoded, M, N, K, nullptr, Activation::None, nullptr);
  if (kernel == WeightKernel::MatvecInt8) reference::addXRounding8Bit(ref, x, decoded, M, N, K);
  // f32 y: the quantized kernels' tolerance (their headers); f16 y: the project's f16 linear one.
  const reference::Tolerance half = reference::toleranceFor(reference::Checked::Linear, DType::F16);
  const reference::ErrorStats s = f16 || halves
                                      ? reference::compareDot(ty.download(), ref, half.atol, half.rtol, half.dotRtol)
                                      : reference::compareDot(ty.download(), ref, 1e-6, 1e-6, 1e-5);
  Run r;
  r.worstRatio = s.worstRatio;
  if (s.failures) {
    r.error = "output does not match the reference: " + reference::describe(s);
    return r;
  }
  r.ns = timeOnDevice(ctx, run, 10).medianNs;
  return r;
}

// The F16 baseline per shape, measured once.
const Run& f16Baseline(int64_t m, int64_t n, int64_t k) {
  static std::map<std::tuple<int64_t, int64_t, int64_t>, Run> cache;
  const auto key = std::make_tuple(m, n, k);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  return cache[key] = timeLinear(m, n, k, DType::F16);
}

void BM_WeightLinear(benchmark::State& state, DType format) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const Run baseline = f16Baseline(m, n, k);
  const Run r = format == DType::F16 ? baseline : timeLinear(m, n, k, format);
  if (!r.error.empty() || !baseline.error.empty()) {
    state.SkipWithError((r.error.empty() ? "f16 baseline: " + baseline.error : r.error).c_str());
    return;
  }
  for (auto _ : state) state.SetIterationTime(r.ns * 1e-9);
  const auto weightBytes = static_cast<double>(storageBytes(format, n * k));
  state.counters["weight_GB/s"] = weightBytes / r.ns;
  state.counters["GFLOP/s"] = 2.0 * static_cast<double>(m * n * k) / r.ns;
  state.counters["vs_f16"] = baseline.ns / r.ns;
  state.counters["err/tol"] = r.worstRatio;
  state.SetLabel(std::string(toString(format)) + " M=" + std::to_string(m) + " N=" + std::to_string(n) +
                 " K=" + std::to_string(k));
}

// The integer-dot kernel against the float matrix-vector kernel, both forced, at one row of x.
void BM_IntegerDotMatvec(benchmark::State& state, DType format) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  if (!bench::context().info().integerDotProduct) {
    state.SkipWithError("the device has no shaderIntegerDotProduct");
    return;
  }
  const Run floats = timeLinear(m, n, k, format, WeightKernel::Matvec);
  const Run r = timeLinear(m, n, k, format, WeightKernel::MatvecInt8);
  if (!r.error.empty() || !floats.error.empty()) {
    state.SkipWithError((r.error.empty() ? "float matvec: " + floats.error : r.error).c_str());
    return;
  }
  for (auto _ : state) state.SetIterationTime(r.ns * 1e-9);
  state.counters["weight_GB/s"] = static_cast<double>(storageBytes(format, n * k)) / r.ns;
  state.counters["GFLOP/s"] = 2.0 * static_cast<double>(m * n * k) / r.ns;
  state.counters["vs_float_matvec"] = floats.ns / r.ns;
  state.counters["err/tol"] = r.worstRatio;
  state.SetLabel(std::string(toString(format)) + " integer-dot M=" + std::to_string(m) + " N=" + std::to_string(n) +
                 " K=" + std::to_string(k));
}

// A prompt weight kernel against the tiled kernel (Auto's choice for prompts on GPUs), both forced.
void BM_PromptWeightKernel(benchmark::State& state, DType format, WeightKernel kernel) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const Run tiled = timeLinear(m, n, k, format, WeightKernel::Tiled);
  const Run r = timeLinear(m, n, k, format, kernel);
  if (!r.error.empty() || !tiled.error.empty()) {
    state.SkipWithError((r.error.empty() ? "tiled: " + tiled.error : r.error).c_str());
    return;
  }
  for (auto _ : state) state.SetIterationTime(r.ns * 1e-9);
  state.counters["GFLOP/s"] = 2.0 * static_cast<double>(m * n * k) / r.ns;
  state.counters["vs_tiled"] = tiled.ns / r.ns;
  state.counters["err/tol"] = r.worstRatio;
  state.SetLabel(std::string(toString(format)) + " " + toString(kernel) + " M=" + std::to_string(m) +
                 " N=" + std::to_string(n) + " K=" + std::to_string(k));
}

void shapes(benchmark::internal::Benchmark* b) {
  b->Args({1, 4096, 4096})->Args({128, 2048, 2048})->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

BENCHMARK_CAPTURE(BM_WeightLinear, f16, DType::F16)->Apply(shapes);
BENCHMARK_CAPTURE(BM_WeightLinear, q8_0, DType::Q8_0)->Apply(shapes);
BENCHMARK_CAPTURE(BM_WeightLinear, q4_0, DType::Q4_0)->Apply(shapes);
BENCHMARK_CAPTURE(BM_WeightLinear, q4_k, DType::Q4_K)->Apply(shapes);
BENCHMARK_CAPTURE(BM_WeightLinear, q5_k, DType::Q5_K)->Apply(shapes);
BENCHMARK_CAPTURE(BM_WeightLinear, q6_k, DType::Q6_K)->Apply(shapes);
void decode(benchmark::internal::Benchmark* b) {
  b->Args({1, 4096, 4096})->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}
// A 1B-class prompt's projection (512 tokens, 4096 x 4096), and a shape CPU drivers time quickly.
void prompts(benchmark::internal::Benchmark* b) {
  b->Args({512, 4096, 4096})->Args({64, 512, 512})->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}
BENCHMARK_CAPTURE(BM_PromptWeightKernel, q4_k_dequantized, DType::Q4_K, WeightKernel::Dequantized)->Apply(prompts);
BENCHMARK_CAPTURE(BM_PromptWeightKernel, q4_k_coopmat2_wg, DType::Q4_K, WeightKernel::Coopmat2Workgroup)
    ->Apply(prompts);
BENCHMARK_CAPTURE(BM_PromptWeightKernel, q8_0_dequantized, DType::Q8_0, WeightKernel::Dequantized)->Apply(prompts);
BENCHMARK_CAPTURE(BM_PromptWeightKernel, q8_0_coopmat2_wg, DType::Q8_0, WeightKernel::Coopmat2Workgroup)
    ->Apply(prompts);
BENCHMARK_CAPTURE(BM_IntegerDotMatvec, q8_0, DType::Q8_0)->Apply(decode);
BENCHMARK_CAPTURE(BM_IntegerDotMatvec, q4_0, DType::Q4_0)->Apply(decode);
BENCHMARK_CAPTURE(BM_IntegerDotMatvec, q4_k, DType::Q4_K)->Apply(decode);
BENCHMARK_CAPTURE(BM_IntegerDotMatvec, q5_k, DType::Q5_K)->Apply(decode);
BENCHMARK_CAPTURE(BM_IntegerDotMatvec, q6_k, DType::Q6_K)->Apply(decode);

}  // namespace

BENCHMARK_MAIN();
