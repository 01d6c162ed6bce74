// argmax over the last dimension against a host scan (the first index of the largest value, as
// TokenSampler's greedy choice and std::max_element take it): short, odd and long rows, several
// rows, ties, rows of -inf and +inf, f16 storage, both kernel profiles (a row per subgroup on CPU
// drivers, per workgroup on GPUs); NaN and bad arguments named. Exact: no tolerance.
#include <algorithm>
#include <limits>
#include <vector>

#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/half.hpp"
#include "vkattn/ops/row_ops.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<int32_t> hostArgmax(const std::vector<float>& x, int64_t cols) {
  std::vector<int32_t> ids;
  for (auto row = x.begin(); row != x.end(); row += cols)
    ids.push_back(static_cast<int32_t>(std::max_element(row, row + cols) - row));
  return ids;
}

void expectArgmax(Context& ctx, const std::vector<float>& x, int64_t rows, int64_t cols, DType dtype) {
  const std::vector<float> stored = dtype == DType::F16 ? roundToHalf(x) : x;
  Tensor t = ctx.tensor({rows, cols}, stored, dtype);
  EXPECT_EQ(argmax(ctx, t).downloadInt(), hostArgmax(stored, cols)) << rows << " x " << cols << " " << toString(dtype);
}

TEST_F(VkattnTest, ArgmaxMatchesAHostScan) {
  Context gpu({.profile = KernelProfile::Gpu});
  for (Context* c : {&ctx(), &gpu})
    for (DType dtype : {DType::F32, DType::F16})
      for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {3, 7}, {17, 1000}, {2, 32001}})
        expectArgmax(*c, randomValues(static_cast<std::size_t>(rows * cols), 301 + static_cast<uint64_t>(cols)), rows,
                     cols, dtype);
  // One long row: the largest value near its end.
  std::vector<float> longRow = randomValues(262144, 302);
  longRow[262140] = 2.0f;
  expectArgmax(ctx(), longRow, 1, 262144, DType::F32);
}

TEST_F(VkattnTest, ArgmaxTakesTheLowestIndexAmongEqualValues) {
  // Ties across lanes and within one lane's columns; a row of -inf; +inf; only negatives.
  const int64_t cols = 100;
  std::vector<float> x(static_cast<std::size_t>(4 * cols), 0.25f);
  for (int64_t c : {97, 13, 41, 14}) x[static_cast<std::size_t>(c)] = 3.0f;
  std::fill(x.begin() + cols, x.begin() + 2 * cols, -kInf);
  x[static_cast<std::size_t>(2 * cols + 66)] = kInf;
  x[static_cast<std::size_t>(2 * cols + 99)] = kInf;
  for (int64_t c = 0; c < cols; ++c) x[static_cast<std::size_t>(3 * cols + c)] = -1.0f - static_cast<float>(c % 7);
  Context gpu({.profile = KernelProfile::Gpu});
  for (Context* c : {&ctx(), &gpu}) {
    Tensor t = c->tensor({4, cols}, x);
    EXPECT_EQ(argmax(*c, t).downloadInt(), (std::vector<int32_t>{13, 0, 66, 0}));
  }
}

TEST_F(VkattnTest, ArgmaxNamesNanAndBadArguments) {
  std::vector<float> x = randomValues(64, 303);
  x[40] = std::numeric_limits<float>::quiet_NaN();
  Tensor nan = ctx().tensor({2, 32}, x);
  EXPECT_EQ(invalidArgumentOf([&] { argmax(ctx(), nan); }), "x");
  Tensor t = ctx().tensor({2, 32});
  EXPECT_EQ(invalidArgumentOf([&] { argmax(ctx(), t, ctx().tensor({3}, DType::I32)); }), "ids");
  EXPECT_EQ(invalidArgumentOf([&] { argmax(ctx(), t, ctx().tensor({2})); }), "ids");
  EXPECT_EQ(invalidArgumentOf([&] { argmax(ctx(), ctx().tensor({2, 32}, DType::I32)); }), "x");
  EXPECT_EQ(argmax(ctx(), ctx().tensor({5}, std::vector<float>{1, 4, 2, 4, 0})).downloadInt(),
            (std::vector<int32_t>{1}));
}

}  // namespace
}  // namespace vkattn::test
