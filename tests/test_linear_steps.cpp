// linear() with a step after the product (LinearOptions::ropeAppend, postNorm) against a double
// reference of the product and then the step: in the product's own dispatch where
// finishesRowsInProduct() holds (a few rows on the matrix-vector kernel, whose last workgroup runs
// the step: one dispatch, counted), as the step's own op after it elsewhere (more rows than one
// workgroup should take, the tiled kernel). x and the f16 weights hold small integers, so the
// product is exact in fp32 and the comparison measures the step.
// Tolerance: a rotated pair within 2e-6 (1 + |y0| + |y1|) (RoPE's, tests/test_rope.cpp), 1e-5
// (1 + max |y|) with head norms or a post-norm (RMSNorm's relative 1e-5 on the normalized values).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/stacked_rows.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/recorder.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/ops/row_ops.hpp"
#include "vkattn/reference/linear_reference.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

constexpr float kEps = 1e-5f;

// Integers in [-3, 3]: exact in f16, and every fp32 sum of up to 2^20 of their products is exact.
std::vector<float> smallIntegers(std::size_t count, uint64_t seed) {
  std::vector<float> v = randomValues(count, seed, -3.49f, 3.49f);
  for (float& x : v) x = std::round(x);
  return v;
}

double maxAbs(const std::vector<float>& v) {
  double m = 0.0;
  for (float x : v) m = std::max(m, std::fabs(static_cast<double>(x)));
  return m;
}

// The product y = x W^T (+ bias) in double, as floats (exact here).
std::vector<float> productRef(const std::vector<float>& x, const std::vector<float>& w, int64_t m, int64_t n, int64_t k,
                              const std::vector<float>* bias) {
  const MatmulRef ref = linearRef(x, w, static_cast<std::size_t>(m), static_cast<std::size_t>(n),
                                  static_cast<std::size_t>(k), bias, Activation::None, nullptr);
  return {ref.value.begin(), ref.value.end()};
}

// Runs `op` and returns the dispatches it recorded.
template <typename Op>
uint64_t dispatchesOf(Context& ctx, Op&& op) {
  const uint64_t before = ctx.recorder().dispatchesRecorded();
  op();
  return ctx.recorder().dispatchesRecorded() - before;
}

struct RopeStepCase {
  StackedRows s;
  int64_t k;
  RopeOptions rope;
  bool headNorms = false;
  bool bias = false;
  // The positions start + l from a tensor on the device, the keys and values written into the
  // whole caches' rows at them (a decode step recorded once), instead of rope.positionOffset + l
  // into a view of rows start .. start + L.
  bool devicePositions = false;
};

// The q/k/v product of x [B, L, K] followed by ropeAppend into a cache [B, capacity, Hkv D] at
// rows start .. start + L.
void checkRopeAppendStep(Context& ctx, const RopeStepCase& c, WeightKernel kernel = WeightKernel::Auto) {
  const StackedRows& s = c.s;
  const int64_t n = s.width(), rows = s.B * s.L, capacity = s.L + 6, start = 4, kvWidth = s.Hkv * s.D;
  const std::vector<float> x = smallIntegers(static_cast<std::size_t>(rows * c.k), 201),
                           w = smallIntegers(static_cast<std::size_t>(n * c.k), 202),
                           b = smallIntegers(static_cast<std::size_t>(n), 203);
  Tensor tx = ctx.tensor({s.B, s.L, c.k}, x), tw = ctx.tensor({n, c.k}, w, DType::F16), tb = ctx.tensor({n}, b);
  Tensor y = ctx.tensor({s.B, s.L, n});
  const std::vector<float> before(static_cast<std::size_t>(s.B * capacity * kvWidth), 5.0f);
  Tensor keys = ctx.tensor({s.B, capacity, kvWidth}, before), values = ctx.tensor({s.B, capacity, kvWidth}, before);
  const auto cacheHeads = [&](const Tensor& cache) {
    if (c.devicePositions)
      return TensorView{
          &cache.buffer(), DType::F32, {s.B, s.Hkv, capacity, s.D}, {capacity * kvWidth, s.D, kvWidth, 1}, 0};
    return TensorView{
        &cache.buffer(), DType::F32, {s.B, s.Hkv, s.L, s.D}, {capacity * kvWidth, s.D, kvWidth, 1}, start * kvWidth};
  };
  std::vector<int32_t> at;
  for (int64_t i = 0; i < rows; ++i) at.push_back(static_cast<int32_t>(start + i % s.L));
  Tensor devicePositions = ctx.tensor({s.B, s.L}, DType::I32);
  devicePositions.uploadInt(at);
  RopeOptions rope = c.rope;
  if (c.devicePositions) rope.positions = devicePositions.view();
  const int64_t firstPosition = c.devicePositions ? start : c.rope.positionOffset;
  const std::vector<float> qw = randomValues(static_cast<std::size_t>(s.D), 204, 0.5f, 1.5f),
                           kw = randomValues(static_cast<std::size_t>(s.D), 205, 0.5f, 1.5f);
  Tensor tqw = ctx.tensor({s.D}, qw), tkw = ctx.tensor({s.D}, kw);
  LinearOptions options{.weightKernel = kernel};
  if (c.bias) options.bias = tb.view();
  options.ropeAppend = RopeAppendStep{s.heads(y, 0, s.Hq), s.heads(y, s.Hq, s.Hkv), s.heads(y, s.Hq + s.Hkv, s.Hkv),
                                      cacheHeads(keys),    cacheHeads(values),      rope};
  if (c.headNorms) options.ropeAppend->headNorms = HeadNorms{tqw.view(), tkw.view(), kEps};
  const bool fused = finishesRowsInProduct(ctx, tx, tw, kernel);
  const uint64_t dispatches = dispatchesOf(ctx, [&] { linear(ctx, tx, tw, y, options); });
  if (fused) {
    EXPECT_EQ(dispatches, 1u) << "the step runs in the product's dispatch";
  }

  const std::vector<float> yRef = productRef(x, w, rows, n, c.k, c.bias ? &b : nullptr);
  const int64_t rotary = c.rope.rotaryDim ? c.rope.rotaryDim : s.D;
  const auto positions = offsetPositions(static_cast<std::size_t>(s.B), static_cast<std::size_t>(s.L), firstPosition);
  const auto rotated = [&](std::vector<float> heads, int64_t count, const std::vector<float>& norm) {
    if (c.headNorms) heads = headNormed(heads, s.D, norm, kEps);
    const double tol = (c.headNorms ? 1e-5 : 2e-6) * (1.0 + 2.0 * maxAbs(heads));
    return std::make_pair(ropeRef(heads, static_cast<std::size_t>(s.B), static_cast<std::size_t>(count),
                                  static_cast<std::size_t>(s.L), static_cast<std::size_t>(s.D),
                                  static_cast<std::size_t>(rotary), c.rope.interleaved, c.rope.theta, positions),
                          tol);
  };
  const std::vector<float> got = y.download();
  const auto [qRef, qTol] = rotated(s.gather(yRef, 0, s.Hq), s.Hq, qw);
  EXPECT_TRUE(allClose(s.gather(got, 0, s.Hq), qRef, qTol, 0.0)) << "queries";
  EXPECT_EQ(s.gather(got, s.Hq, 2 * s.Hkv), s.gather(yRef, s.Hq, 2 * s.Hkv)) << "keys and values stay in y";
  const auto cacheRows = [&](const std::vector<float>& cache, bool inside) {
    return s.cacheRows(cache, capacity, start, inside);
  };
  const std::vector<float> gotKeys = keys.download(), gotValues = values.download();
  const auto [kRef, kTol] = rotated(s.gather(yRef, s.Hq, s.Hkv), s.Hkv, kw);
  EXPECT_TRUE(allClose(cacheRows(gotKeys, true), kRef, kTol, 0.0)) << "keys";
  EXPECT_EQ(cacheRows(gotValues, true), s.gather(yRef, s.Hq + s.Hkv, s.Hkv)) << "values";
  for (const auto* cache : {&gotKeys, &gotValues})
    for (float v : cacheRows(*cache, false)) ASSERT_EQ(v, 5.0f) << "a row outside start .. start + L changed";
}

// A decoded token (one row), a few rows at once, GQA, both pair layouts, head norms, a partial
// rotary dim, bias; and more rows than the last workgroup takes (the step's own dispatch).
TEST_F(VkattnTest, LinearThenRopeAppendMatchesTheReference) {
  const RopeOptions plain{.positionOffset = 9};
  checkRopeAppendStep(ctx(), {.s = {.B = 1, .L = 1, .Hq = 4, .Hkv = 2, .D = 16}, .k = 64, .rope = plain});
  checkRopeAppendStep(ctx(), {.s = {.B = 1, .L = 1, .Hq = 6, .Hkv = 2, .D = 64},
                              .k = 96,
                              .rope = {.theta = 500000.0, .interleaved = true, .positionOffset = 70000},
                              .headNorms = true,
                              .bias = true});
  checkRopeAppendStep(ctx(), {.s = {.B = 2, .L = 3, .Hq = 2, .Hkv = 1, .D = 32},
                              .k = 64,
                              .rope = {.rotaryDim = 16, .positionOffset = 3},
                              .headNorms = true});
  EXPECT_TRUE(finishesRowsInProduct(ctx(), ctx().tensor({8, 64}), ctx().tensor({16, 64}, DType::F16)));
  EXPECT_FALSE(finishesRowsInProduct(ctx(), ctx().tensor({9, 64}), ctx().tensor({16, 64}, DType::F16)));
  checkRopeAppendStep(ctx(), {.s = {.B = 1, .L = 9, .Hq = 2, .Hkv = 1, .D = 16}, .k = 32, .rope = plain});
  checkRopeAppendStep(ctx(), {.s = {.B = 1, .L = 1, .Hq = 2, .Hkv = 1, .D = 16}, .k = 32, .rope = plain},
                      WeightKernel::Tiled);
}

// The same with the positions on the device and the whole caches given: fused into the product's
// last workgroup (one and three rows, head norms), and the step's own dispatch past it.
TEST_F(VkattnTest, LinearThenRopeAppendAtPositionsFromTheDevice) {
  checkRopeAppendStep(ctx(), {.s = {.B = 1, .L = 1, .Hq = 4, .Hkv = 2, .D = 16}, .k = 64, .devicePositions = true});
  checkRopeAppendStep(ctx(), {.s = {.B = 2, .L = 3, .Hq = 2, .Hkv = 1, .D = 32},
                              .k = 64,
                              .rope = {.rotaryDim = 16},
                              .headNorms = true,
                              .devicePositions = true});
  checkRopeAppendStep(ctx(), {.s = {.B = 1, .L = 9, .Hq = 2, .Hkv = 1, .D = 16}, .k = 32, .devicePositions = true});
  // A position outside the caches, named as linear() takes it.
  const StackedRows s{.B = 1, .L = 1, .Hq = 2, .Hkv = 1, .D = 16};
  Tensor x = ctx().tensor({1, 1, 32}, smallIntegers(32, 221)),
         w = ctx().tensor({s.width(), 32}, smallIntegers(static_cast<std::size_t>(s.width() * 32), 222), DType::F16);
  Tensor y = ctx().tensor({1, 1, s.width()}), keys = ctx().tensor({1, 1, 4, 16}), values = ctx().tensor({1, 1, 4, 16});
  Tensor outside = ctx().tensor({1}, DType::I32);
  outside.uploadInt(std::vector<int32_t>{-1});
  const RopeAppendStep step{
      s.heads(y, 0, 2), s.heads(y, 2, 1), s.heads(y, 3, 1), keys, values, {.positions = outside.view()}};
  const bool fused = finishesRowsInProduct(ctx(), x.view().reshaped({1, 32}), w);
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, w, y, {.ropeAppend = step}); }),
            fused ? "ropeAppend.rope.positions" : "positions");
}

// y = residual + rmsNorm(x W^T) * weight, for `rows` rows of x.
void checkPostNormStep(Context& ctx, int64_t rows, int64_t n, int64_t k, WeightKernel kernel = WeightKernel::Auto) {
  const std::vector<float> x = smallIntegers(static_cast<std::size_t>(rows * k), 211),
                           w = smallIntegers(static_cast<std::size_t>(n * k), 212),
                           r = randomValues(static_cast<std::size_t>(rows * n), 213),
                           g = randomValues(static_cast<std::size_t>(n), 214, 0.5f, 1.5f);
  Tensor tx = ctx.tensor({rows, k}, x), tw = ctx.tensor({n, k}, w, DType::F16), tr = ctx.tensor({rows, n}, r),
         tg = ctx.tensor({n}, g), y = ctx.tensor({rows, n});
  const bool fused = finishesRowsInProduct(ctx, tx, tw, kernel);
  const uint64_t dispatches = dispatchesOf(ctx, [&] {
    linear(ctx, tx, tw, y, {.weightKernel = kernel, .postNorm = PostNormStep{tg.view(), kEps, tr.view()}});
  });
  if (fused) {
    EXPECT_EQ(dispatches, 1u) << "the norm runs in the product's dispatch";
  }
  const std::vector<double> normed =
      rmsNormRef(productRef(x, w, rows, n, k, nullptr), static_cast<std::size_t>(n), &g, kEps);
  std::vector<double> ref(normed.size());
  double largest = 0.0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    ref[i] = r[i] + normed[i];
    largest = std::max(largest, std::fabs(normed[i]));
  }
  EXPECT_TRUE(allClose(y.download(), ref, 1e-5 * (1.0 + largest), 0.0)) << rows << " rows";
}

TEST_F(VkattnTest, LinearThenPostNormMatchesTheReference) {
  checkPostNormStep(ctx(), 1, 96, 64);
  checkPostNormStep(ctx(), 3, 200, 96);
  checkPostNormStep(ctx(), 12, 40, 32);  // more rows than one workgroup takes: rmsNorm after
  checkPostNormStep(ctx(), 1, 40, 32, WeightKernel::Tiled);
}

TEST_F(VkattnTest, LinearStepsNameBadArguments) {
  const StackedRows s{.B = 1, .L = 1, .Hq = 2, .Hkv = 1, .D = 8};
  Tensor x = ctx().tensor({1, 1, 32}, smallIntegers(32, 221)),
         w = ctx().tensor({s.width(), 32}, smallIntegers(static_cast<std::size_t>(s.width() * 32), 222), DType::F16);
  Tensor y = ctx().tensor({1, 1, s.width()}), other = ctx().tensor({1, 1, s.width()});
  Tensor keys = ctx().tensor({1, 1, 2, 8}), values = ctx().tensor({1, 1, 2, 8});
  const auto step = [&](const Tensor& rows) {
    return RopeAppendStep{s.heads(rows, 0, 2), s.heads(rows, 2, 1), s.heads(rows, 3, 1), keys.view().sliced(2, 0, 1),
                          values.view().sliced(2, 0, 1)};
  };
  Tensor g = ctx().tensor({s.width()}, randomValues(static_cast<std::size_t>(s.width()), 223));
  Tensor r = ctx().tensor({1, 1, s.width()}, randomValues(static_cast<std::size_t>(s.width()), 224));
  const PostNormStep post{g.view(), kEps, r.view()};
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, w, y, {.ropeAppend = step(other)}); }), "ropeAppend.q");
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, w, y, {.ropeAppend = step(y), .postNorm = post}); }), "postNorm");
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, w, y, {.residual = r.view(), .postNorm = post}); }), "residual");
  EXPECT_EQ(invalidArgumentOf([&] {
              linear(ctx(), x, w, y, {.postNorm = PostNormStep{g.view(), kEps, ctx().tensor({1, 2}).view()}});
            }),
            "postNorm.residual");
  EXPECT_EQ(invalidArgumentOf([&] {
              linear(ctx(), x, w, y, {.postNorm = PostNormStep{g.view(), -1.0f, r.view()}});
            }),
            "postNorm.eps");
  // NaN in the step's own inputs is named, from the product's last workgroup as from rmsNorm().
  std::vector<float> nanWeight = randomValues(static_cast<std::size_t>(s.width()), 225);
  nanWeight[3] = std::numeric_limits<float>::quiet_NaN();
  Tensor bad = ctx().tensor({s.width()}, nanWeight);
  for (WeightKernel kernel : {WeightKernel::Auto, WeightKernel::Tiled})
    EXPECT_EQ(invalidArgumentOf([&] {
                linear(ctx(), x, w, y, {.weightKernel = kernel, .postNorm = PostNormStep{bad.view(), kEps, r.view()}});
              }),
              "postNorm.weight")
        << toString(kernel);
  Tensor badHead = ctx().tensor({8}, std::vector<float>(8, std::numeric_limits<float>::quiet_NaN()));
  Tensor head = ctx().tensor({8}, randomValues(8, 226));
  RopeAppendStep normed = step(y);
  normed.headNorms = HeadNorms{head.view(), badHead.view(), kEps};
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, w, y, {.ropeAppend = normed}); }), "headNorms");
}

}  // namespace
}  // namespace vkattn::test
