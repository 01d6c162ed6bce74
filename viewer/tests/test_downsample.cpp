// heatmap_downsample.comp against the CPU reference: odd map and bin counts, every reduction,
// one lane per bin and lanes sharing a bin, regions inside the map; with validation on.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "render/downsample.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

using test::VkattnTest;

Matrix randomMap(int64_t rows, int64_t cols, uint32_t seed, bool signedValues) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(signedValues ? -1.0f : 0.0f, 1.0f);
  Matrix m(rows, cols);
  for (float& v : m.values) v = dist(rng);
  return m;
}

void expectMatches(const Matrix& got, const Matrix& ref, Reduction how, const std::string& what) {
  ASSERT_EQ(got.rows, ref.rows) << what;
  ASSERT_EQ(got.cols, ref.cols) << what;
  double worst = 0;
  std::size_t where = 0;
  for (std::size_t i = 0; i < ref.values.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got.values[i]) - ref.values[i]);
    const double tol = how == Reduction::Mean ? 1e-5 + 1e-4 * std::fabs(ref.values[i]) : 0.0;
    if (err - tol > worst) {
      worst = err - tol;
      where = i;
    }
  }
  EXPECT_EQ(worst, 0.0) << what << ": worst excess error at bin (" << where / ref.cols << ", " << where % ref.cols
                        << "): got " << got.values[where] << ", reference " << ref.values[where];
}

TEST(BinEdges, SplitEvenly) {
  EXPECT_EQ(binEdges(0, 10, 3), (std::vector<uint32_t>{0, 3, 6, 10}));
  EXPECT_EQ(binEdges(5, 12, 7), (std::vector<uint32_t>{5, 6, 7, 8, 9, 10, 11, 12}));
  const auto edges = binEdges(3, 1003, 7);
  for (std::size_t i = 1; i < edges.size(); ++i) {
    const uint32_t length = edges[i] - edges[i - 1];
    EXPECT_TRUE(length == 142 || length == 143) << length;
  }
  EXPECT_THROW(binEdges(0, 3, 4), InvalidArgument);
  EXPECT_THROW(binEdges(0, 3, 0), InvalidArgument);
}

TEST(DownsampleReference, ReducesByHand) {
  Matrix m(2, 3);
  m.values = {1, -5, 2, 4, 0, 3};
  const std::vector<uint32_t> rows = {0, 2}, cols = {0, 2, 3};
  EXPECT_EQ(downsampleReference(m, rows, cols, Reduction::Max).values, (std::vector<float>{4, 3}));
  EXPECT_EQ(downsampleReference(m, rows, cols, Reduction::Mean).values, (std::vector<float>{0, 2.5f}));
  EXPECT_EQ(downsampleReference(m, rows, cols, Reduction::MaxMagnitude).values, (std::vector<float>{-5, 3}));
  Matrix tie(1, 2);
  tie.values = {-2, 2};
  EXPECT_EQ(downsampleReference(tie, {0, 1}, {0, 2}, Reduction::MaxMagnitude).values, (std::vector<float>{2}))
      << "equal magnitudes keep the positive value";
}

class GpuDownsample : public VkattnTest {};

TEST_F(GpuDownsample, MatchesTheReferenceOnOddShapes) {
  struct Case {
    int64_t rows, cols, binRows, binCols;
  };
  for (const Case c : {Case{7, 5, 7, 5}, Case{33, 1000, 5, 77}, Case{1001, 999, 333, 97}, Case{257, 3, 13, 2}}) {
    for (Reduction how : {Reduction::Max, Reduction::Mean, Reduction::MaxMagnitude}) {
      const Matrix map =
          randomMap(c.rows, c.cols, static_cast<uint32_t>(c.rows * 31 + c.cols), how == Reduction::MaxMagnitude);
      GpuDownsampler gpu(ctx());
      gpu.setMap(map);
      const auto rowEdges = binEdges(0, c.rows, c.binRows), colEdges = binEdges(0, c.cols, c.binCols);
      const Matrix ref = downsampleReference(map, rowEdges, colEdges, how);
      for (uint32_t lanes : {0u, 1u, 8u, 64u})
        expectMatches(gpu.run(rowEdges, colEdges, how, lanes), ref, how,
                      std::to_string(c.rows) + "x" + std::to_string(c.cols) + " -> " + std::to_string(c.binRows) + "x" +
                          std::to_string(c.binCols) + ", mode " + std::to_string(static_cast<int>(how)) + ", lanes " +
                          std::to_string(lanes));
    }
  }
}

TEST_F(GpuDownsample, ReducesARegionInsideTheMap) {
  const Matrix map = randomMap(300, 211, 5, false);
  GpuDownsampler gpu(ctx());
  gpu.setMap(map);
  const auto rowEdges = binEdges(17, 250, 41), colEdges = binEdges(100, 211, 11);
  for (Reduction how : {Reduction::Max, Reduction::Mean})
    expectMatches(gpu.run(rowEdges, colEdges, how), downsampleReference(map, rowEdges, colEdges, how), how, "region");
}

TEST_F(GpuDownsample, BigBinsStayUnderTheLoopLimit) {
  // 2048 x 2048 into 3 x 2 bins: ~700k cells per bin, more than lavapipe lets one invocation loop.
  const Matrix map = randomMap(2048, 2048, 9, false);
  GpuDownsampler gpu(ctx());
  gpu.setMap(map);
  const auto rowEdges = binEdges(0, 2048, 3), colEdges = binEdges(0, 2048, 2);
  const uint64_t cells = 683ull * 1024;
  if (ctx().info().loopIterationLimit && (cells + 63) / 64 > ctx().info().loopIterationLimit) {
    EXPECT_THROW(gpu.run(rowEdges, colEdges, Reduction::Max), Unsupported);
    return;
  }
  for (Reduction how : {Reduction::Max, Reduction::Mean})
    expectMatches(gpu.run(rowEdges, colEdges, how), downsampleReference(map, rowEdges, colEdges, how), how, "big bins");
}

TEST_F(GpuDownsample, RejectsBadEdges) {
  GpuDownsampler gpu(ctx());
  EXPECT_THROW(gpu.run({0, 1}, {0, 1}, Reduction::Max), InvalidArgument) << "no map yet";
  gpu.setMap(randomMap(4, 4, 1, false));
  EXPECT_THROW(gpu.run({0, 5}, {0, 4}, Reduction::Max), InvalidArgument);
  EXPECT_THROW(gpu.run({0, 2, 2, 4}, {0, 4}, Reduction::Max), InvalidArgument);
  EXPECT_THROW(gpu.run({0, 4}, {0, 4}, Reduction::Max, 3), InvalidArgument);
}

}  // namespace
}  // namespace vkattn::viewer
