// softmax conformance against the double reference: odd shapes, scale, broadcast masks, fully
// masked rows, long rows, f16 storage.
#include <cmath>
#include <limits>

#include "support/compare.hpp"
#include "support/test_context.hpp"
#include "vkattn/ops/row_ops.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

const double kAtolF32 = toleranceFor(Checked::Softmax, DType::F32).atol,
             kRtolF32 = toleranceFor(Checked::Softmax, DType::F32).rtol;
const double kAtolF16 = toleranceFor(Checked::Softmax, DType::F16).atol,
             kRtolF16 = toleranceFor(Checked::Softmax, DType::F16).rtol;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::vector<std::size_t> identityRows(std::size_t rows) {
  std::vector<std::size_t> r(rows);
  for (std::size_t i = 0; i < rows; ++i) r[i] = i;
  return r;
}

class Softmax : public VkattnTest, public ::testing::WithParamInterface<std::tuple<int64_t, int64_t>> {};

TEST_P(Softmax, MatchesReferenceF32) {
  auto [rows, cols] = GetParam();
  auto x = randomValues(static_cast<std::size_t>(rows * cols), 11 + rows * 7 + cols, -8.0f, 8.0f);
  Tensor tx = ctx().tensor({rows, cols}, x);
  Tensor ty = softmax(ctx(), tx, {.scale = 0.7f});
  auto ref = softmaxRef(x, static_cast<std::size_t>(cols), 0.7, nullptr, {});
  EXPECT_TRUE(allClose(ty.download(), ref, kAtolF32, kRtolF32));
}

TEST_P(Softmax, MatchesReferenceF16Storage) {
  auto [rows, cols] = GetParam();
  auto x = roundToHalf(randomValues(static_cast<std::size_t>(rows * cols), 5 + rows + cols, -4.0f, 4.0f));
  Tensor tx = ctx().tensor({rows, cols}, x, DType::F16);
  Tensor ty = softmax(ctx(), tx);
  auto ref = softmaxRef(x, static_cast<std::size_t>(cols), 1.0, nullptr, {});
  EXPECT_TRUE(allClose(ty.download(), ref, kAtolF16, kRtolF16));
}

INSTANTIATE_TEST_SUITE_P(OddShapes, Softmax,
                         ::testing::Values(std::tuple<int64_t, int64_t>{1, 1}, std::tuple<int64_t, int64_t>{3, 7},
                                           std::tuple<int64_t, int64_t>{7, 33}, std::tuple<int64_t, int64_t>{33, 1000},
                                           std::tuple<int64_t, int64_t>{5, 4097},
                                           std::tuple<int64_t, int64_t>{1000, 3}));

TEST_F(VkattnTest, SoftmaxRowOfOneMillionColumns) {
  const int64_t cols = 1 << 20;
  auto x = randomValues(cols, 99, -20.0f, 20.0f);
  Tensor ty = softmax(ctx(), ctx().tensor({1, cols}, x));
  auto got = ty.download();
  auto ref = softmaxRef(x, cols, 1.0, nullptr, {});
  EXPECT_TRUE(allClose(got, ref, 1e-9, 1e-4));
  double sum = 0.0;
  for (float v : got) sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-4);
}

TEST_F(VkattnTest, SoftmaxBroadcastMaskOverBatchAndHeads) {
  // x [B=2, H=3, L=5, L=5] with a causal mask [5, 5] and a per-head bias [1, 3, 1, 5].
  const int64_t B = 2, H = 3, L = 5;
  auto x = randomValues(B * H * L * L, 3);
  std::vector<float> causal(L * L);
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < L; ++j) causal[i * L + j] = j <= i ? 0.0f : kNegInf;
  Tensor tx = ctx().tensor({B, H, L, L}, x);
  Tensor tm = ctx().tensor({L, L}, causal);
  Tensor y1 = softmax(ctx(), tx, {.scale = 1.5f, .mask = tm.view()});
  std::vector<std::size_t> rowOf(B * H * L);
  for (std::size_t r = 0; r < rowOf.size(); ++r) rowOf[r] = r % L;
  EXPECT_TRUE(allClose(y1.download(), softmaxRef(x, L, 1.5, &causal, rowOf), kAtolF32, kRtolF32));

  auto bias = randomValues(H * L, 4, -2.0f, 2.0f);
  Tensor tb = ctx().tensor({1, H, 1, L}, bias);
  Tensor y2 = softmax(ctx(), tx, {.mask = tb.view()});
  for (std::size_t r = 0; r < rowOf.size(); ++r) rowOf[r] = (r / L) % H;
  EXPECT_TRUE(allClose(y2.download(), softmaxRef(x, L, 1.0, &bias, rowOf), kAtolF32, kRtolF32));
}

class SoftmaxMasked : public VkattnTest, public ::testing::WithParamInterface<int64_t> {};

// Column counts that take the scalar path (9) and the vec4 path (12).
INSTANTIATE_TEST_SUITE_P(ScalarAndVec4, SoftmaxMasked, ::testing::Values(int64_t{9}, int64_t{12}));

TEST_P(SoftmaxMasked, BroadcastBiasOverHeads) {
  const int64_t H = 3, L = 4, cols = GetParam();
  auto x = randomValues(2 * H * L * cols, 13);
  auto bias = randomValues(H * cols, 14, -3.0f, 3.0f);
  bias[cols + 2] = kNegInf;
  Tensor y = softmax(ctx(), ctx().tensor({2, H, L, cols}, x),
                     {.scale = 0.5f, .mask = ctx().tensor({H, 1, cols}, bias).view()});
  std::vector<std::size_t> rowOf(2 * H * L);
  for (std::size_t r = 0; r < rowOf.size(); ++r) rowOf[r] = (r / L) % H;
  EXPECT_TRUE(allClose(y.download(), softmaxRef(x, cols, 0.5, &bias, rowOf), kAtolF32, kRtolF32));
}

TEST_P(SoftmaxMasked, FullyMaskedRowIsZero) {
  const int64_t rows = 4, cols = GetParam();
  auto x = randomValues(rows * cols, 8);
  std::vector<float> mask(rows * cols, 0.0f);
  for (int64_t c = 0; c < cols; ++c) mask[2 * cols + c] = kNegInf;  // row 2 fully masked
  mask[1 * cols + 3] = kNegInf;
  Tensor y = softmax(ctx(), ctx().tensor({rows, cols}, x), {.mask = ctx().tensor({rows, cols}, mask).view()});
  auto got = y.download();
  for (int64_t c = 0; c < cols; ++c) EXPECT_EQ(got[2 * cols + c], 0.0f) << "column " << c;
  EXPECT_EQ(got[1 * cols + 3], 0.0f);
  EXPECT_TRUE(allClose(got, softmaxRef(x, cols, 1.0, &mask, identityRows(rows)), kAtolF32, kRtolF32));
}

TEST_F(VkattnTest, SoftmaxIsStableForLargeLogits) {
  // exp(1e4) overflows float; the row max subtraction must keep every value finite.
  std::vector<float> x = {1e4f, 1e4f - 1.0f, -1e4f, 3e4f, 3e4f, 0.0f, 88.0f, 89.0f, 90.0f};
  Tensor y = softmax(ctx(), ctx().tensor({3, 3}, x));
  EXPECT_TRUE(allClose(y.download(), softmaxRef(x, 3, 1.0, nullptr, {}), kAtolF32, kRtolF32));
}

TEST_F(VkattnTest, SoftmaxInPlace) {
  auto x = randomValues(6 * 10, 21);
  Tensor t = ctx().tensor({6, 10}, x);
  softmax(ctx(), t, t);
  EXPECT_TRUE(allClose(t.download(), softmaxRef(x, 10, 1.0, nullptr, {}), kAtolF32, kRtolF32));
}

}  // namespace
}  // namespace vkattn::test
