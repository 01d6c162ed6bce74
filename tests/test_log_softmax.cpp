// log_softmax against a double-precision reference written here: odd shapes, scale, f16 storage,
// -inf logits, large logits, long rows, in place, and bad input named.
#include <cmath>
#include <limits>

#include "support/compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/ops/op_row.hpp"
#include "vkattn/ops/row_ops.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using reference::randomValues;
using reference::roundToHalf;
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// y[r, :] = scale x[r, :] - log(sum exp(scale x[r, :])) in double; a row of -inf alone stays -inf.
std::vector<double> logSoftmaxRef(const std::vector<float>& x, std::size_t cols, double scale) {
  std::vector<double> y(x.size());
  for (std::size_t base = 0; base < x.size(); base += cols) {
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < cols; ++c) top = std::max(top, scale * x[base + c]);
    double sum = 0.0;
    for (std::size_t c = 0; c < cols; ++c) sum += std::exp(scale * x[base + c] - top);
    const double shift = std::isinf(top) ? 0.0 : top + std::log(sum);
    for (std::size_t c = 0; c < cols; ++c) y[base + c] = scale * x[base + c] - shift;
  }
  return y;
}

::testing::AssertionResult closeToReference(const Tensor& y, const std::vector<float>& x, std::size_t cols,
                                            double scale) {
  const Tolerance tol = opRow("log_softmax").toleranceFor(y.dtype());
  return allClose(y.download(), logSoftmaxRef(x, cols, scale), tol.atol, tol.rtol);
}

class LogSoftmax : public VkattnTest, public ::testing::WithParamInterface<std::tuple<int64_t, int64_t>> {};

TEST_P(LogSoftmax, MatchesTheReferenceF32) {
  const auto [rows, cols] = GetParam();
  const auto x = randomValues(static_cast<std::size_t>(rows * cols), 17 + rows * 5 + cols, -12.0f, 12.0f);
  const Tensor y = logSoftmax(ctx(), ctx().tensor({rows, cols}, x), {.scale = 0.7f});
  EXPECT_TRUE(closeToReference(y, x, static_cast<std::size_t>(cols), 0.7));
}

TEST_P(LogSoftmax, MatchesTheReferenceF16Storage) {
  const auto [rows, cols] = GetParam();
  const auto x = roundToHalf(randomValues(static_cast<std::size_t>(rows * cols), 3 + rows + cols, -6.0f, 6.0f));
  const Tensor y = logSoftmax(ctx(), ctx().tensor({rows, cols}, x, DType::F16));
  EXPECT_EQ(y.dtype(), DType::F16);
  EXPECT_TRUE(closeToReference(y, x, static_cast<std::size_t>(cols), 1.0));
}

INSTANTIATE_TEST_SUITE_P(OddShapes, LogSoftmax,
                         ::testing::Values(std::tuple<int64_t, int64_t>{1, 1}, std::tuple<int64_t, int64_t>{3, 7},
                                           std::tuple<int64_t, int64_t>{7, 33}, std::tuple<int64_t, int64_t>{33, 1000},
                                           std::tuple<int64_t, int64_t>{5, 4097}, std::tuple<int64_t, int64_t>{1000, 3},
                                           std::tuple<int64_t, int64_t>{2, 32000}));

TEST_F(VkattnTest, LogSoftmaxKeepsMinusInfinityAndRowsOfItAlone) {
  const int64_t rows = 4, cols = 12;  // vec4 rows
  auto x = randomValues(rows * cols, 8, -3.0f, 3.0f);
  for (int64_t c = 0; c < cols; c += 3) x[c] = kNegInf;          // row 0: every third column removed
  for (int64_t c = 0; c < cols; ++c) x[2 * cols + c] = kNegInf;  // row 2: every column
  const std::vector<float> got = logSoftmax(ctx(), ctx().tensor({rows, cols}, x)).download();
  std::vector<double> ref = logSoftmaxRef(x, cols, 1.0);
  std::vector<float> finiteGot = got;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i] == kNegInf) {
      EXPECT_EQ(got[i], kNegInf) << "element " << i;
      finiteGot[i] = 0.0f;
      ref[i] = 0.0;
    }
  EXPECT_TRUE(allClose(finiteGot, ref, 1e-5, 1e-6));
  double probability = 0.0;  // row 0's probabilities still sum to 1
  for (int64_t c = 0; c < cols; ++c) probability += std::exp(static_cast<double>(got[c]));
  EXPECT_NEAR(probability, 1.0, 1e-5);
}

TEST_F(VkattnTest, LogSoftmaxOfLargeLogitsDoesNotOverflow) {
  auto x = randomValues(3 * 257, 21, -2e4f, 2e4f);
  x[5] = 3e4f;
  const Tensor y = logSoftmax(ctx(), ctx().tensor({3, 257}, x));
  EXPECT_TRUE(closeToReference(y, x, 257, 1.0));
}

TEST_F(VkattnTest, LogSoftmaxOfALongRowAndOfRank3InPlace) {
  const int64_t cols = 1 << 18;
  const auto x = randomValues(cols, 4, -20.0f, 20.0f);
  EXPECT_TRUE(closeToReference(logSoftmax(ctx(), ctx().tensor({cols}, x)), x, cols, 1.0));

  const auto z = randomValues(2 * 3 * 50, 6, -5.0f, 5.0f);
  Tensor t = ctx().tensor({2, 3, 50}, z);
  logSoftmax(ctx(), t, t, {.scale = 2.5f});
  EXPECT_TRUE(closeToReference(t, z, 50, 2.5));
}

TEST_F(VkattnTest, LogSoftmaxNamesBadArguments) {
  Tensor x = ctx().tensor({2, 8}, randomValues(16, 1));
  EXPECT_EQ(invalidArgumentOf([&] { logSoftmax(ctx(), x, {.scale = 0.0f}); }), "scale");
  EXPECT_EQ(invalidArgumentOf([&] { logSoftmax(ctx(), x, {.scale = -1.0f}); }), "scale");
  EXPECT_EQ(invalidArgumentOf([&] { logSoftmax(ctx(), x, {.scale = std::nanf("")}); }), "scale");
  EXPECT_EQ(invalidArgumentOf([&] { logSoftmax(ctx(), x, ctx().tensor({2, 9})); }), "y");
  EXPECT_EQ(invalidArgumentOf([&] { logSoftmax(ctx(), x, ctx().tensor({2, 8}, DType::F16)); }), "y");
  EXPECT_EQ(invalidArgumentOf([&] { logSoftmax(ctx(), ctx().tensor({2, 8}, DType::I32)); }), "x");
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()})
    for (int64_t cols : {8, 7}) {  // vec4 rows and scalar rows
      auto values = randomValues(2 * cols, 2);
      values[cols + 3] = bad;
      EXPECT_EQ(invalidArgumentOf([&] {
                  logSoftmax(ctx(), ctx().tensor({2, cols}, values));
                }),
                "x")
          << bad << " in a row of " << cols;
    }
}

}  // namespace
}  // namespace vkattn::test
