#include "measurements.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "vkattn/reference/attention_reference.hpp"
#include "vkattn/reference/linear_reference.hpp"
#include "vkattn/reference/paged_cache.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"
#include "vkattn/reference/work_counts.hpp"
#include "vkattn/vkattn.hpp"

namespace vkattn::measure {
using reference::Checked;
using reference::toleranceFor;
namespace {

std::vector<float> sample(std::size_t count, uint64_t seed, float lo, float hi, DType dtype) {
  auto v = reference::randomValues(count, seed, lo, hi);
  return dtype == DType::F16 ? reference::roundToHalf(v) : v;
}

// The largest allowed error over `expected` under `tol`.
double largestAllowed(const std::vector<double>& expected, reference::Tolerance tol) {
  double largest = 0.0;
  for (const double e : expected) largest = std::max(largest, tol.atol + tol.rtol * std::abs(e));
  return largest;
}

// Past ~2·10⁹ multiply-adds of double reference, check 64 query rows per head spread over the
// sequence (first and last included) instead of all: sets problem.rows and returns true.
constexpr std::size_t kSampledRows = 64;
bool sampleReferenceRows(reference::AttentionProblem& problem) {
  const double work = 2.0 * static_cast<double>(problem.batch * problem.headsQ) * static_cast<double>(problem.lq) *
                      static_cast<double>(problem.lk) * static_cast<double>(problem.dk);
  if (work <= 2e9 || problem.lq <= kSampledRows) return false;
  for (std::size_t t = 0; t < kSampledRows; ++t) problem.rows.push_back(t * (problem.lq - 1) / (kSampledRows - 1));
  return true;
}

// Appends the rows the reference evaluated (problem.rows, or all) of `got` and `ref`, both
// [B, Hq, Lq, Dv], to gotChecked and expected.
void appendCheckedRows(const reference::AttentionProblem& problem, const std::vector<float>& got,
                       const std::vector<double>& ref, std::vector<float>& gotChecked, std::vector<double>& expected) {
  for (std::size_t bh = 0; bh < problem.batch * problem.headsQ; ++bh)
    for (std::size_t i = 0; i < problem.lq; ++i) {
      if (!problem.rows.empty() && std::find(problem.rows.begin(), problem.rows.end(), i) == problem.rows.end())
        continue;
      const std::size_t at = (bh * problem.lq + i) * problem.dv;
      gotChecked.insert(gotChecked.end(), got.begin() + static_cast<std::ptrdiff_t>(at),
                        got.begin() + static_cast<std::ptrdiff_t>(at + problem.dv));
      expected.insert(expected.end(), ref.begin() + static_cast<std::ptrdiff_t>(at),
                      ref.begin() + static_cast<std::ptrdiff_t>(at + problem.dv));
    }
}

Measurement memoryBound(Context& ctx, std::string kernel, Checked checked, const Tensor& x, const Tensor& y,
                        const std::function<void()>& op, const std::vector<double>& expected, Repeats repeats) {
  Measurement m{std::move(kernel) + (x.dtype() == DType::F16 ? " f16" : " f32"), toString(x.shape())};
  op();
  const reference::Tolerance tol = toleranceFor(checked, x.dtype());
  m.error = reference::compare(y.download(), expected, tol.atol, tol.rtol);
  m.tolerance = largestAllowed(expected, tol);
  const double bytes = reference::rowKernelBytes(x.numel(), static_cast<int64_t>(dtypeSize(x.dtype())));
  const double ns = timeOnDevice(ctx, op, repeats.kernel).medianNs;
  m.rate = bytes / ns;
  m.medianMs = ns * 1e-6;
  if (repeats.baseline > 0)
    m.baselineRate = copyRate(ctx, static_cast<std::size_t>(bytes), repeats.baseline);
  else
    m.baselineSkipped = "not asked for";
  return m;
}

}  // namespace

double copyRate(Context& ctx, std::size_t bytes, int repeats) {
  const int64_t floats = static_cast<int64_t>((bytes / 2 + 15) / 16 * 4);
  Tensor a = ctx.tensor({floats}), b = ctx.tensor({floats});
  return static_cast<double>(2 * floats * 4) / timeOnDevice(
                                                   ctx, [&] { copy(ctx, a, b); }, repeats)
                                                   .medianNs;
}

Measurement measureRowOp(Context& ctx, const std::string& kernel, int64_t rows, int64_t cols, DType dtype,
                         Repeats repeats) {
  auto values = sample(static_cast<std::size_t>(rows * cols), 1, -4.0f, 4.0f, dtype);
  Tensor x = ctx.tensor({rows, cols}, values, dtype), y = ctx.tensor({rows, cols}, dtype);
  const auto c = static_cast<std::size_t>(cols);
  if (kernel == "softmax")
    return memoryBound(
        ctx, kernel, Checked::Softmax, x, y, [&] { softmax(ctx, x, y, {.scale = 0.125f}); },
        reference::softmaxRef(values, c, 0.125, nullptr, {}), repeats);
  if (kernel == "layer_norm")
    return memoryBound(
        ctx, kernel, Checked::LayerNorm, x, y, [&] { layerNorm(ctx, x, y); },
        reference::layerNormRef(values, c, nullptr, nullptr, 1e-5), repeats);
  if (kernel == "rms_norm")
    return memoryBound(
        ctx, kernel, Checked::RmsNorm, x, y, [&] { rmsNorm(ctx, x, y); },
        reference::rmsNormRef(values, c, nullptr, 1e-6), repeats);
  throw InvalidArgument("kernel", "'" + kernel + "' is not softmax, layer_norm or rms_norm");
}

Measurement measureRope(Context& ctx, int64_t batch, int64_t heads, int64_t len, int64_t dim, DType dtype,
                        Repeats repeats) {
  auto values = sample(static_cast<std::size_t>(batch * heads * len * dim), 2, -1.0f, 1.0f, dtype);
  Tensor x = ctx.tensor({batch, heads, len, dim}, values, dtype), y = ctx.tensor({batch, heads, len, dim}, dtype);
  std::vector<int64_t> positions(static_cast<std::size_t>(batch * len));
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int64_t>(i) % len;
  return memoryBound(
      ctx, "rope", Checked::Rope, x, y, [&] { rope(ctx, x, y); },
      reference::ropeRef(values, batch, heads, len, dim, dim, false, 10000.0, positions), repeats);
}

Measurement measureAttention(Context& ctx, const AttentionCase& c, Repeats repeats) {
  const int64_t batch = c.batch, heads = c.heads, queries = c.queries, len = c.len, dim = c.dim;
  const int64_t kvHeads = c.kvHeads ? c.kvHeads : heads;
  const DType dtype = c.dtype;
  auto q = sample(static_cast<std::size_t>(batch * heads * queries * dim), 4, -1.0f, 1.0f, dtype);
  auto k = sample(static_cast<std::size_t>(batch * kvHeads * len * dim), 5, -1.0f, 1.0f, dtype);
  auto v = sample(static_cast<std::size_t>(batch * kvHeads * len * dim), 6, -1.0f, 1.0f, dtype);
  const DType kvDtype = c.kvDtype.value_or(dtype);
  if (kvDtype != dtype) {  // the values the format holds: the reference reads these
    k = decodeValues(kvDtype, encodeValues(kvDtype, k), static_cast<int64_t>(k.size()));
    v = decodeValues(kvDtype, encodeValues(kvDtype, v), static_cast<int64_t>(v.size()));
  }
  Tensor tq = ctx.tensor({batch, heads, queries, dim}, q, dtype), tk = ctx.tensor({batch, kvHeads, len, dim}, k, dtype),
         tv = ctx.tensor({batch, kvHeads, len, dim}, v, dtype);
  Tensor out = ctx.tensor({batch, heads, queries, dim}, dtype);
  // Bottom-right causal alignment: the queries are the newest tokens (decode with a KV cache).
  AttentionOptions dense{.causal = c.causal, .alignment = MaskAlignment::BottomRight, .variant = c.variant};
  dense.keySplits = c.keySplits;
  AttentionOptions options = dense;
  Tensor formatK, formatV;
  if (kvDtype != dtype) {
    formatK = ctx.tensor({batch, kvHeads, len, dim}, k, kvDtype);
    formatV = ctx.tensor({batch, kvHeads, len, dim}, v, kvDtype);
  }
  TensorView kRead = kvDtype != dtype ? formatK.view() : tk.view(),
             vRead = kvDtype != dtype ? formatV.view() : tv.view();
  Tensor pagedK, pagedV, table;
  if (c.pageSize > 0) {
    if (len % c.pageSize != 0) throw InvalidArgument("pageSize", "must divide the length");
    const auto pages = static_cast<std::size_t>(c.pageSize);
    auto paged = [&](const std::vector<float>& x, Tensor& into) {
      const reference::PagedCache p =
          reference::pageCache(x, static_cast<std::size_t>(batch), static_cast<std::size_t>(kvHeads),
                               static_cast<std::size_t>(len), static_cast<std::size_t>(dim), pages, 0, 0.0f, 7);
      into = ctx.tensor({static_cast<int64_t>(p.numBlocks), c.pageSize, kvHeads, dim}, p.cache, kvDtype);
      return p.table;
    };
    table = Tensor::fromHostInt(ctx.device(), {batch, len / c.pageSize}, paged(k, pagedK));
    paged(v, pagedV);
    kRead = pagedK.view().permuted({0, 2, 1, 3});
    vRead = pagedV.view().permuted({0, 2, 1, 3});
    options.blockTable = table.view();
  }
  Measurement m{std::string("attention") + (c.causal ? " causal" : "") + (dtype == DType::F16 ? " f16" : " f32"),
                toString(Shape{batch, heads, queries, len, dim}) +
                    (kvHeads != heads ? " kv" + std::to_string(kvHeads) : "") +
                    (c.pageSize ? " paged " + std::to_string(c.pageSize) : "") +
                    (kvDtype != dtype ? std::string(" kv ") + toString(kvDtype) : "")};
  m.unit = "GFLOP/s";
  const bool againstDense = c.pageSize || kvDtype != dtype;
  m.baseline = c.against ? toString(*c.against) : againstDense ? "dense" : "naive";
  m.variant = toString(attentionVariantFor(ctx, tq, kRead, vRead, options));
  try {
    attention(ctx, tq, kRead, vRead, out, options);
  } catch (const Unsupported& e) {  // a variant this device lacks (the cooperative-matrix kernel)
    m.skipped = e.what();
    return m;
  }

  reference::AttentionProblem problem;
  problem.batch = static_cast<std::size_t>(batch);
  problem.headsQ = static_cast<std::size_t>(heads);
  problem.headsKv = static_cast<std::size_t>(kvHeads);
  problem.lq = static_cast<std::size_t>(queries);
  problem.lk = static_cast<std::size_t>(len);
  problem.dk = problem.dv = static_cast<std::size_t>(dim);
  problem.scale = 1.0 / std::sqrt(static_cast<double>(dim));
  problem.causal = c.causal;
  problem.bottomRight = true;
  problem.withProbs = false;
  if (sampleReferenceRows(problem))
    m.checked = std::to_string(kSampledRows) + " of " + std::to_string(queries) + " query rows per head";
  const reference::AttentionResult reference = reference::attentionRef(problem, q, k, v);
  std::vector<float> gotChecked;
  std::vector<double> expected;
  appendCheckedRows(problem, out.download(), reference.out, gotChecked, expected);
  const reference::Tolerance tol = toleranceFor(Checked::Attention, dtype);
  m.error = reference::compare(gotChecked, expected, tol.atol, tol.rtol);
  m.tolerance = largestAllowed(expected, tol);

  const double flops = reference::attentionFlops(batch, heads, queries, len, dim, dim, c.causal, true);
  const double ns = timeOnDevice(
                        ctx, [&] { attention(ctx, tq, kRead, vRead, out, options); }, repeats.kernel)
                        .medianNs;
  m.rate = flops / ns;
  m.medianMs = ns * 1e-6;
  if (repeats.baseline <= 0) {
    m.baselineSkipped = "not asked for";
    return m;
  }
  try {
    Tensor baselineOut = ctx.tensor({batch, heads, queries, dim}, dtype);
    AttentionOptions other = options;
    if (c.against) {
      other.variant = *c.against;
      other.keySplits = 0;  // the other kernel at its own split count (it may split no keys)
    }
    const double baselineNs = timeOnDevice(
                                  ctx,
                                  [&] {
                                    if (c.against)
                                      attention(ctx, tq, kRead, vRead, baselineOut, other);
                                    else if (againstDense)
                                      attention(ctx, tq, tk, tv, baselineOut, dense);
                                    else
                                      attentionNaive(ctx, tq, tk, tv, baselineOut, dense);
                                  },
                                  repeats.baseline)
                                  .medianNs;
    m.baselineRate = flops / baselineNs;
    m.baselineMedianMs = baselineNs * 1e-6;
  } catch (const Error& e) {  // its Lq×Lk scores do not fit the device's buffers
    m.baselineSkipped = e.what();
  }
  return m;
}

Measurement measureVarlenPrefill(Context& ctx, const VarlenCase& c, Repeats repeats) {
  const int64_t heads = c.heads, dim = c.dim;
  std::vector<int32_t> offsets = {0};
  for (const int32_t len : c.lengths) {
    if (len < 1) throw InvalidArgument("lengths", "every sequence needs at least one token");
    offsets.push_back(offsets.back() + len);
  }
  const int64_t total = offsets.back();
  const auto elements = static_cast<std::size_t>(total * heads * dim);
  const auto q = sample(elements, 11, -1.0f, 1.0f, c.dtype), k = sample(elements, 12, -1.0f, 1.0f, c.dtype),
             v = sample(elements, 13, -1.0f, 1.0f, c.dtype);
  // Packed [total, H, D] as the [1, H, total, D] views attention takes.
  Tensor tq = ctx.tensor({total, heads, dim}, q, c.dtype), tk = ctx.tensor({total, heads, dim}, k, c.dtype),
         tv = ctx.tensor({total, heads, dim}, v, c.dtype), out = ctx.tensor({total, heads, dim}, c.dtype);
  auto packed = [](const Tensor& t) {
    return t.view().reshaped({1, t.shape()[0], t.shape()[1], t.shape()[2]}).permuted({0, 2, 1, 3});
  };
  auto sequence = [&](const Tensor& t, std::size_t b) {
    return packed(t).sliced(2, offsets[b], offsets[b + 1] - offsets[b]);
  };
  AttentionOptions options{.causal = true, .alignment = MaskAlignment::BottomRight};
  options.cuSeqlensQ = offsets;
  options.cuSeqlensK = offsets;
  std::string lengths;
  for (const int32_t len : c.lengths) lengths += (lengths.empty() ? "" : ",") + std::to_string(len);
  Measurement m{std::string("attention varlen causal") + (c.dtype == DType::F16 ? " f16" : " f32"),
                "H" + std::to_string(heads) + " D" + std::to_string(dim) + " lengths " + lengths};
  m.unit = "GFLOP/s";
  m.baseline = "per sequence";
  m.variant = "rows";
  attention(ctx, packed(tq), packed(tk), packed(tv), packed(out), options);

  // Each sequence against the reference on its own rows ([1, H, L, D] slices of the packed arrays).
  const std::vector<float> got = out.download();
  std::vector<float> gotChecked;
  std::vector<double> expected;
  const reference::Tolerance tol = toleranceFor(Checked::Attention, c.dtype);
  double flops = 0.0;
  for (std::size_t b = 0; b < c.lengths.size(); ++b) {
    const int64_t len = c.lengths[b];
    flops += reference::attentionFlops(1, heads, len, len, dim, dim, true, true);
    auto rows = [&](const std::vector<float>& x) {
      std::vector<float> r;
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < len; ++i) {
          const auto at = x.begin() + ((offsets[b] + i) * heads + h) * dim;
          r.insert(r.end(), at, at + dim);
        }
      return r;
    };
    reference::AttentionProblem problem;
    problem.headsQ = problem.headsKv = static_cast<std::size_t>(heads);
    problem.lq = problem.lk = static_cast<std::size_t>(len);
    problem.dk = problem.dv = static_cast<std::size_t>(dim);
    problem.scale = 1.0 / std::sqrt(static_cast<double>(dim));
    problem.causal = problem.bottomRight = true;
    problem.withProbs = false;
    if (sampleReferenceRows(problem))
      m.checked = std::to_string(kSampledRows) + " query rows per head of the longest sequences";
    const reference::AttentionResult ref = reference::attentionRef(problem, rows(q), rows(k), rows(v));
    appendCheckedRows(problem, rows(got), ref.out, gotChecked, expected);
  }
  m.error = reference::compare(gotChecked, expected, tol.atol, tol.rtol);
  m.tolerance = largestAllowed(expected, tol);

  const double ns =
      timeOnDevice(
          ctx, [&] { attention(ctx, packed(tq), packed(tk), packed(tv), packed(out), options); }, repeats.kernel)
          .medianNs;
  m.rate = flops / ns;
  m.medianMs = ns * 1e-6;
  if (repeats.baseline <= 0) {
    m.baselineSkipped = "not asked for";
    return m;
  }
  const AttentionOptions one{.causal = true, .alignment = MaskAlignment::BottomRight};
  const double baselineNs =
      timeOnDevice(
          ctx,
          [&] {
            for (std::size_t b = 0; b < c.lengths.size(); ++b)
              attention(ctx, sequence(tq, b), sequence(tk, b), sequence(tv, b), sequence(out, b), one);
          },
          repeats.baseline)
          .medianNs;
  m.baselineRate = flops / baselineNs;
  m.baselineMedianMs = baselineNs * 1e-6;
  return m;
}

Measurement measureLinear(Context& ctx, int64_t m, int64_t n, int64_t k, DType dtype, MatmulVariant variant,
                          Repeats repeats) {
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
  try {
    run(variant);
  } catch (const Unsupported& e) {  // a variant this device lacks (the cooperative-matrix kernel)
    result.skipped = e.what();
    return result;
  }
  // The matmul tolerance grows with each output's sum of |x w|; the column shows its largest value.
  // Past ~2·10⁹ multiply-adds of double reference, 64 rows of x spread over [0, m) are checked.
  const reference::Tolerance tol = toleranceFor(Checked::Linear, dtype);
  std::vector<std::size_t> rows(um);
  for (std::size_t i = 0; i < um; ++i) rows[i] = i;
  if (static_cast<double>(um) * static_cast<double>(un) * static_cast<double>(uk) > 2e9 && um > kSampledRows) {
    rows.resize(kSampledRows);
    for (std::size_t t = 0; t < kSampledRows; ++t) rows[t] = t * (um - 1) / (kSampledRows - 1);
    result.checked = std::to_string(kSampledRows) + " of " + std::to_string(m) + " rows";
  }
  std::vector<float> xRows, got = y.download(), gotRows;
  for (const std::size_t r : rows) {
    xRows.insert(xRows.end(), x.begin() + static_cast<std::ptrdiff_t>(r * uk),
                 x.begin() + static_cast<std::ptrdiff_t>((r + 1) * uk));
    gotRows.insert(gotRows.end(), got.begin() + static_cast<std::ptrdiff_t>(r * un),
                   got.begin() + static_cast<std::ptrdiff_t>((r + 1) * un));
  }
  const reference::MatmulRef ref = reference::linearRef(xRows, w, rows.size(), un, uk, &b, Activation::Gelu, nullptr);
  result.error = reference::compareDot(gotRows, ref, tol.atol, tol.rtol, tol.dotRtol);
  for (std::size_t i = 0; i < ref.value.size(); ++i)
    result.tolerance =
        std::max(result.tolerance, tol.atol + tol.rtol * std::abs(ref.value[i]) + tol.dotRtol * ref.absDot[i]);
  const double flops = reference::matmulFlops(m, n, k);
  const double ns = timeOnDevice(
                        ctx, [&] { run(variant); }, repeats.kernel)
                        .medianNs;
  result.rate = flops / ns;
  result.medianMs = ns * 1e-6;
  if (repeats.baseline <= 0) {
    result.baselineSkipped = "not asked for";
    return result;
  }
  const double naiveNs = timeOnDevice(
                             ctx, [&] { run(MatmulVariant::Naive); }, repeats.baseline)
                             .medianNs;
  result.baselineRate = flops / naiveNs;
  result.baselineMedianMs = naiveNs * 1e-6;
  return result;
}

void printHeader() {
  std::printf("%-22s %-24s %10s %10s  %-4s %10s %10s %9s\n", "kernel", "shape", "max|err|", "tolerance", "", "speed",
              "baseline", "ratio");
}

void printMeasurement(const Measurement& m) {
  if (!m.skipped.empty()) {
    std::printf("%-22s %-24s not run: %s\n", m.kernel.c_str(), m.shape.c_str(), m.skipped.c_str());
    return;
  }
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

}  // namespace vkattn::measure
