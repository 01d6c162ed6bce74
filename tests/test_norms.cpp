// LayerNorm and RMSNorm conformance against the double reference on odd shapes, with and
// without affine parameters, f32 and f16 storage, and rows long enough to need a workgroup.
#include "support/compare.hpp"
#include "support/test_context.hpp"
#include "vkattn/ops/row_ops.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

const double kAtolF32 = toleranceFor(Checked::LayerNorm, DType::F32).atol,
             kRtolF32 = toleranceFor(Checked::LayerNorm, DType::F32).rtol;  // RMSNorm shares them
const double kAtolF16 = toleranceFor(Checked::LayerNorm, DType::F16).atol,
             kRtolF16 = toleranceFor(Checked::LayerNorm, DType::F16).rtol;

using Shape2 = std::tuple<int64_t, int64_t>;
class Norms : public VkattnTest, public ::testing::WithParamInterface<Shape2> {};

TEST_P(Norms, LayerNormF32) {
  auto [rows, cols] = GetParam();
  auto x = randomValues(rows * cols, 100 + cols, -3.0f, 5.0f);  // non-zero mean
  auto w = randomValues(cols, 101, 0.5f, 1.5f), b = randomValues(cols, 102);
  Tensor tx = ctx().tensor({rows, cols}, x), tw = ctx().tensor({cols}, w), tb = ctx().tensor({cols}, b);
  Tensor plain = layerNorm(ctx(), tx);
  EXPECT_TRUE(allClose(plain.download(), layerNormRef(x, cols, nullptr, nullptr, 1e-5), kAtolF32, kRtolF32));
  Tensor affine = layerNorm(ctx(), tx, {.weight = tw.view(), .bias = tb.view(), .eps = 1e-3f});
  EXPECT_TRUE(allClose(affine.download(), layerNormRef(x, cols, &w, &b, 1e-3), kAtolF32, kRtolF32));
}

TEST_P(Norms, RmsNormF32) {
  auto [rows, cols] = GetParam();
  auto x = randomValues(rows * cols, 200 + cols, -2.0f, 2.0f);
  auto w = randomValues(cols, 201, 0.5f, 1.5f);
  Tensor tx = ctx().tensor({rows, cols}, x), tw = ctx().tensor({cols}, w);
  Tensor plain = rmsNorm(ctx(), tx);
  EXPECT_TRUE(allClose(plain.download(), rmsNormRef(x, cols, nullptr, 1e-6), kAtolF32, kRtolF32));
  Tensor weighted = rmsNorm(ctx(), tx, {.weight = tw.view(), .eps = 1e-5f});
  EXPECT_TRUE(allClose(weighted.download(), rmsNormRef(x, cols, &w, 1e-5), kAtolF32, kRtolF32));
}

// y = residual + RMSNorm(x) in one pass (post-norm models), into a new tensor and in place into the
// residual itself, f32 and f16.
TEST_P(Norms, RmsNormAddsAResidual) {
  auto [rows, cols] = GetParam();
  auto x = randomValues(rows * cols, 210 + cols, -2.0f, 2.0f);
  auto w = randomValues(cols, 211, 0.5f, 1.5f), r = randomValues(rows * cols, 212, -3.0f, 3.0f);
  std::vector<double> ref = rmsNormRef(x, cols, &w, 1e-5);
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] += r[i];
  Tensor tx = ctx().tensor({rows, cols}, x), tw = ctx().tensor({cols}, w), tr = ctx().tensor({rows, cols}, r);
  Tensor added = rmsNorm(ctx(), tx, {.weight = tw.view(), .eps = 1e-5f, .residual = tr.view()});
  EXPECT_TRUE(allClose(added.download(), ref, kAtolF32, kRtolF32));
  rmsNorm(ctx(), tx, tr, {.weight = tw.view(), .eps = 1e-5f, .residual = tr.view()});
  EXPECT_TRUE(allClose(tr.download(), ref, kAtolF32, kRtolF32)) << "in place into the residual";

  auto xh = roundToHalf(x), wh = roundToHalf(w), rh = roundToHalf(r);
  std::vector<double> refh = rmsNormRef(xh, cols, &wh, 1e-6);
  for (std::size_t i = 0; i < refh.size(); ++i) refh[i] += rh[i];
  Tensor hx = ctx().tensor({rows, cols}, xh, DType::F16), hw = ctx().tensor({cols}, wh, DType::F16);
  Tensor hr = ctx().tensor({rows, cols}, rh, DType::F16);
  Tensor addedh = rmsNorm(ctx(), hx, {.weight = hw.view(), .residual = hr.view()});
  EXPECT_TRUE(allClose(addedh.download(), refh, kAtolF16, kRtolF16));
}

TEST_P(Norms, F16Storage) {
  auto [rows, cols] = GetParam();
  auto x = roundToHalf(randomValues(rows * cols, 300 + cols, -2.0f, 3.0f));
  auto w = roundToHalf(randomValues(cols, 301, 0.5f, 1.5f)), b = roundToHalf(randomValues(cols, 302));
  Tensor tx = ctx().tensor({rows, cols}, x, DType::F16);
  Tensor tw = ctx().tensor({cols}, w, DType::F16), tb = ctx().tensor({cols}, b, DType::F16);
  Tensor ln = layerNorm(ctx(), tx, {.weight = tw.view(), .bias = tb.view()});
  EXPECT_TRUE(allClose(ln.download(), layerNormRef(x, cols, &w, &b, 1e-5), kAtolF16, kRtolF16));
  Tensor rms = rmsNorm(ctx(), tx, {.weight = tw.view()});
  EXPECT_TRUE(allClose(rms.download(), rmsNormRef(x, cols, &w, 1e-6), kAtolF16, kRtolF16));
}

INSTANTIATE_TEST_SUITE_P(OddShapes, Norms,
                         ::testing::Values(Shape2{1, 1}, Shape2{3, 7}, Shape2{7, 33}, Shape2{33, 1000}, Shape2{2, 4097},
                                           Shape2{1000, 3}, Shape2{1, 300000}));

TEST_F(VkattnTest, LayerNormConstantRowIsZero) {
  // Zero variance: the output is (x - mean) * rsqrt(eps) = 0 exactly, then the bias.
  std::vector<float> x(65, 3.25f);
  std::vector<float> b(65, 0.5f);
  Tensor y = layerNorm(ctx(), ctx().tensor({1, 65}, x), {.bias = ctx().tensor({65}, b).view()});
  for (float v : y.download()) EXPECT_EQ(v, 0.5f);
}

TEST_F(VkattnTest, LayerNormLargeOffsetKeepsPrecision) {
  // A two-pass variance does not cancel catastrophically when |mean| >> std.
  auto x = randomValues(4 * 256, 7, -1.0f, 1.0f);
  for (auto& v : x) v += 1000.0f;
  Tensor y = layerNorm(ctx(), ctx().tensor({4, 256}, x));
  EXPECT_TRUE(allClose(y.download(), layerNormRef(x, 256, nullptr, nullptr, 1e-5), 2e-4, 1e-4));
}

}  // namespace
}  // namespace vkattn::test
