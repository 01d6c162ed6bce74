#include "measurements.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "support/attention_reference.hpp"
#include "support/linear_reference.hpp"
#include "support/reference.hpp"
#include "vkattn/vkattn.hpp"

namespace vkattn::cli {
namespace {

std::vector<float> sample(std::size_t count, uint64_t seed, float lo, float hi, DType dtype) {
  auto v = test::randomValues(count, seed, lo, hi);
  return dtype == DType::F16 ? test::roundToHalf(v) : v;
}

double copyRate(Context& ctx, std::size_t bytes) {
  const int64_t floats = static_cast<int64_t>((bytes / 2 + 15) / 16 * 4);
  Tensor a = ctx.tensor({floats}), b = ctx.tensor({floats});
  return static_cast<double>(2 * floats * 4) / timeOnDevice(ctx, [&] { copy(ctx, a, b); }).medianNs;
}

Measurement memoryBound(Context& ctx, std::string kernel, const Tensor& x, const Tensor& y,
                        const std::function<void()>& op, const std::vector<double>& reference, double tolerance) {
  Measurement m{std::move(kernel) + (x.dtype() == DType::F16 ? " f16" : " f32"), toString(x.shape())};
  op();
  m.error = test::compare(y.download(), reference, tolerance, tolerance);
  m.tolerance = tolerance;
  const std::size_t bytes = x.bytes() + y.bytes();
  m.rate = static_cast<double>(bytes) / timeOnDevice(ctx, op).medianNs;
  m.baselineRate = copyRate(ctx, bytes);
  return m;
}

}  // namespace

Measurement measureRowOp(Context& ctx, const std::string& kernel, int64_t rows, int64_t cols, DType dtype) {
  const bool half = dtype == DType::F16;
  auto values = sample(static_cast<std::size_t>(rows * cols), 1, -4.0f, 4.0f, dtype);
  Tensor x = ctx.tensor({rows, cols}, values, dtype), y = ctx.tensor({rows, cols}, dtype);
  const auto c = static_cast<std::size_t>(cols);
  if (kernel == "softmax")
    return memoryBound(ctx, kernel, x, y, [&] { softmax(ctx, x, y, {.scale = 0.125f}); },
                       test::softmaxRef(values, c, 0.125, nullptr, {}), half ? 1e-3 : 1e-5);
  if (kernel == "layer_norm")
    return memoryBound(ctx, kernel, x, y, [&] { layerNorm(ctx, x, y); },
                       test::layerNormRef(values, c, nullptr, nullptr, 1e-5), half ? 4e-3 : 2e-5);
  if (kernel == "rms_norm")
    return memoryBound(ctx, kernel, x, y, [&] { rmsNorm(ctx, x, y); }, test::rmsNormRef(values, c, nullptr, 1e-6),
                       half ? 4e-3 : 2e-5);
  throw InvalidArgument("kernel", "'" + kernel + "' is not softmax, layer_norm or rms_norm");
}

Measurement measureRope(Context& ctx, int64_t batch, int64_t heads, int64_t len, int64_t dim, DType dtype) {
  auto values = sample(static_cast<std::size_t>(batch * heads * len * dim), 2, -1.0f, 1.0f, dtype);
  Tensor x = ctx.tensor({batch, heads, len, dim}, values, dtype), y = ctx.tensor({batch, heads, len, dim}, dtype);
  std::vector<int64_t> positions(static_cast<std::size_t>(batch * len));
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int64_t>(i) % len;
  return memoryBound(ctx, "rope", x, y, [&] { rope(ctx, x, y); },
                     test::ropeRef(values, batch, heads, len, dim, dim, false, 10000.0, positions),
                     dtype == DType::F16 ? 2e-3 : 2e-6);
}

Measurement measureAttention(Context& ctx, int64_t batch, int64_t heads, int64_t queries, int64_t len, int64_t dim,
                             bool causal, DType dtype) {
  const bool half = dtype == DType::F16;
  auto q = sample(static_cast<std::size_t>(batch * heads * queries * dim), 4, -1.0f, 1.0f, dtype);
  auto k = sample(static_cast<std::size_t>(batch * heads * len * dim), 5, -1.0f, 1.0f, dtype);
  auto v = sample(static_cast<std::size_t>(batch * heads * len * dim), 6, -1.0f, 1.0f, dtype);
  Tensor tq = ctx.tensor({batch, heads, queries, dim}, q, dtype), tk = ctx.tensor({batch, heads, len, dim}, k, dtype),
         tv = ctx.tensor({batch, heads, len, dim}, v, dtype);
  Tensor out = ctx.tensor({batch, heads, queries, dim}, dtype);
  // Bottom-right causal alignment: the queries are the newest tokens (decode with a KV cache).
  const AttentionOptions options{.causal = causal, .alignment = MaskAlignment::BottomRight};
  Measurement m{std::string("attention") + (causal ? " causal" : "") + (half ? " f16" : " f32"),
                toString(Shape{batch, heads, queries, len, dim})};
  m.unit = "GFLOP/s";
  m.baseline = "naive";
  m.variant = toString(attentionVariantFor(ctx, options.variant, queries));
  attention(ctx, tq, tk, tv, out, options);

  test::AttentionProblem problem;
  problem.batch = static_cast<std::size_t>(batch);
  problem.headsQ = problem.headsKv = static_cast<std::size_t>(heads);
  problem.lq = static_cast<std::size_t>(queries);
  problem.lk = static_cast<std::size_t>(len);
  problem.dk = problem.dv = static_cast<std::size_t>(dim);
  problem.scale = 1.0 / std::sqrt(static_cast<double>(dim));
  problem.causal = causal;
  problem.bottomRight = true;
  problem.withProbs = false;
  constexpr std::size_t kSampledRows = 64;
  const double referenceWork = 2.0 * static_cast<double>(batch * heads) * static_cast<double>(queries) *
                               static_cast<double>(len) * static_cast<double>(dim);
  if (referenceWork > 2e9 && problem.lq > kSampledRows) {
    for (std::size_t t = 0; t < kSampledRows; ++t) problem.rows.push_back(t * (problem.lq - 1) / (kSampledRows - 1));
    m.checked = std::to_string(kSampledRows) + " of " + std::to_string(queries) + " query rows per head";
  }
  const test::AttentionResult reference = test::attentionRef(problem, q, k, v);
  std::vector<float> got = out.download(), gotChecked;
  std::vector<double> expected;
  if (problem.rows.empty()) {
    gotChecked = std::move(got);
    expected = reference.out;
  } else {
    for (std::size_t bh = 0; bh < problem.batch * problem.headsQ; ++bh)
      for (const std::size_t i : problem.rows) {
        const std::size_t at = (bh * problem.lq + i) * problem.dv;
        gotChecked.insert(gotChecked.end(), got.begin() + at, got.begin() + at + problem.dv);
        expected.insert(expected.end(), reference.out.begin() + at, reference.out.begin() + at + problem.dv);
      }
  }
  m.tolerance = half ? 2e-3 : 2e-5;
  m.error = test::compare(gotChecked, expected, m.tolerance, m.tolerance * 5);

  double flops = 4.0 * batch * heads * queries * len * dim;
  if (causal && queries == len) flops /= 2;
  const double ns = timeOnDevice(ctx, [&] { attention(ctx, tq, tk, tv, out, options); }, 3).medianNs;
  m.rate = flops / ns;
  m.medianMs = ns * 1e-6;
  try {
    Tensor naive = ctx.tensor({batch, heads, queries, dim}, dtype);
    m.baselineRate = flops / timeOnDevice(ctx, [&] { attentionNaive(ctx, tq, tk, tv, naive, options); }, 3).medianNs;
  } catch (const Error& e) {  // its Lq×Lk scores do not fit the device's buffers
    m.baselineSkipped = e.what();
  }
  return m;
}

Measurement measureLinear(Context& ctx, int64_t m, int64_t n, int64_t k, DType dtype) {
  const bool half = dtype == DType::F16;
  const auto um = static_cast<std::size_t>(m), un = static_cast<std::size_t>(n), uk = static_cast<std::size_t>(k);
  auto x = sample(um * uk, 7, -1.0f, 1.0f, dtype), w = sample(un * uk, 8, -1.0f, 1.0f, dtype);
  auto b = sample(un, 9, -1.0f, 1.0f, dtype);
  Tensor tx = ctx.tensor({m, k}, x, dtype), tw = ctx.tensor({n, k}, w, dtype), tb = ctx.tensor({n}, b, dtype);
  Tensor y = ctx.tensor({m, n}, dtype);
  auto run = [&](MatmulVariant variant) {
    linear(ctx, tx, tw, y, {.bias = tb.view(), .activation = Activation::Gelu, .variant = variant});
  };
  Measurement result{std::string("linear gelu") + (half ? " f16" : " f32"), toString(Shape{m, n, k})};
  result.unit = "GFLOP/s";
  result.baseline = "naive";
  run(MatmulVariant::Auto);
  // The matmul tolerance (linear.hpp) is atol + rtol |ref| + 2e-7 sum_k |x w| per output; the
  // column shows its largest value over the outputs.
  const double atol = half ? 1e-3 : 1e-5;
  const test::MatmulRef ref = test::linearRef(x, w, um, un, uk, &b, Activation::Gelu, nullptr);
  result.error = test::compareDot(y.download(), ref, atol, atol, 2e-7);
  for (std::size_t i = 0; i < ref.value.size(); ++i)
    result.tolerance = std::max(result.tolerance, atol + atol * std::abs(ref.value[i]) + 2e-7 * ref.absDot[i]);
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  result.rate = flops / timeOnDevice(ctx, [&] { run(MatmulVariant::Auto); }, 3).medianNs;
  result.baselineRate = flops / timeOnDevice(ctx, [&] { run(MatmulVariant::Naive); }, 3).medianNs;
  return result;
}

void printHeader() {
  std::printf("%-22s %-24s %10s %10s  %-4s %10s %10s %9s\n", "kernel", "shape", "max|err|", "tolerance", "", "speed",
              "baseline", "ratio");
}

void printMeasurement(const Measurement& m) {
  const char* status = m.error.failures ? "FAIL" : "ok";
  std::string where = std::string("(") + m.unit + "; baseline: " + m.baseline;
  if (!m.variant.empty()) where += "; kernel: " + m.variant;
  if (m.checked != "all outputs") where += "; checked " + m.checked;
  where += ")";
  if (m.baselineSkipped.empty()) {
    std::printf("%-22s %-24s %10.2e %10.1e  %-4s %10.2f %10.2f %8.2fx  %s\n", m.kernel.c_str(), m.shape.c_str(),
                m.error.maxAbs, m.tolerance, status, m.rate, m.baselineRate, m.rate / m.baselineRate, where.c_str());
  } else {
    std::printf("%-22s %-24s %10.2e %10.1e  %-4s %10.2f %10s %9s  %s\nbaseline not run: %s\n", m.kernel.c_str(),
                m.shape.c_str(), m.error.maxAbs, m.tolerance, status, m.rate, "n/a", "n/a", where.c_str(),
                m.baselineSkipped.c_str());
  }
}

}  // namespace vkattn::cli
