// The selection's device ops (map_combine.comp, map_rows.comp, map_row_stats.comp, rollout's
// product) against double-precision references written here: seeded random maps of odd shapes,
// heads read at offsets of their layer's tensor, worst errors reported. Tolerances are the
// kernels' (their opening comments); validation is on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "render/downsample.hpp"
#include "sources/device_map.hpp"
#include "sources/map_kernels.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

using test::VkattnTest;
using MapKernels = VkattnTest;

constexpr double kAtol = 1e-6, kRtol = 1e-5;  // sums in fp32 (map_combine, map_rows)

// Rows of softmax-like probabilities (or signed values), seeded.
AttentionMap randomLayer(int64_t heads, int64_t rows, int64_t cols, uint32_t seed, bool probabilities = true) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(probabilities ? 0.0f : -1.0f, 1.0f);
  AttentionMap layer{heads, rows, cols, std::vector<float>(static_cast<std::size_t>(heads * rows * cols))};
  for (float& v : layer.weights) v = dist(rng);
  if (probabilities)
    for (int64_t r = 0; r < heads * rows; ++r) {
      double sum = 0;
      for (int64_t c = 0; c < cols; ++c) sum += layer.weights[static_cast<std::size_t>(r * cols + c)];
      for (int64_t c = 0; c < cols; ++c)
        layer.weights[static_cast<std::size_t>(r * cols + c)] =
            static_cast<float>(layer.weights[static_cast<std::size_t>(r * cols + c)] / sum);
    }
  return layer;
}

using Reference = std::vector<double>;  // row-major, the map's shape

Reference head(const AttentionMap& layer, int64_t h) {
  const auto first = layer.weights.begin() + h * layer.rows * layer.cols;
  return Reference(first, first + layer.rows * layer.cols);
}

// Worst |got - ref| beyond atol + rtol |ref|, 0 when all are within.
void expectClose(const Matrix& got, const Reference& ref, double atol, double rtol, const std::string& what) {
  ASSERT_EQ(got.values.size(), ref.size()) << what;
  double worst = 0, worstExcess = 0;
  std::size_t where = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double err = std::fabs(got.values[i] - ref[i]);
    worst = std::max(worst, err);
    if (err - (atol + rtol * std::fabs(ref[i])) > worstExcess) {
      worstExcess = err - (atol + rtol * std::fabs(ref[i]));
      where = i;
    }
  }
  EXPECT_EQ(worstExcess, 0.0) << what << ": cell (" << where / static_cast<std::size_t>(got.cols) << ", "
                              << where % static_cast<std::size_t>(got.cols) << ") got " << got.values[where]
                              << ", reference " << ref[where];
  std::cout << "[ worst    ] " << what << ": " << worst << "\n";
}

TEST_F(MapKernels, MeanAndMaxOfHeadsAtTheirOffsets) {
  const AttentionMap layer = randomLayer(5, 37, 53, 11);
  const std::vector<DeviceMap> heads = uploadLayer(ctx(), layer);
  Reference mean(static_cast<std::size_t>(37 * 53), 0.0), max(mean.size(), -1e300);
  for (int64_t h = 0; h < 5; ++h) {
    const Reference one = head(layer, h);
    for (std::size_t i = 0; i < mean.size(); ++i) {
      mean[i] += one[i] / 5.0;
      max[i] = std::max(max[i], one[i]);
    }
  }
  expectClose(download(combineMaps(ctx(), heads, Aggregation::Mean)), mean, kAtol, kRtol, "mean of 5 heads");
  expectClose(download(combineMaps(ctx(), heads, Aggregation::Max)), max, 0, 0, "max of 5 heads");
  expectClose(download(combineMaps(ctx(), {heads[3]}, Aggregation::Mean)), head(layer, 3), 0, 0, "mean of one head");
}

TEST_F(MapKernels, DifferenceIsExact) {
  const AttentionMap layer = randomLayer(3, 7, 1001, 12, false);
  const std::vector<DeviceMap> heads = uploadLayer(ctx(), layer);
  Reference diff = head(layer, 2);
  const Reference b = head(layer, 0);
  for (std::size_t i = 0; i < diff.size(); ++i) diff[i] = static_cast<float>(diff[i] - b[i]);
  expectClose(download(subtractMaps(ctx(), heads[2], heads[0])), diff, 0, 0, "head 2 - head 0");
}

TEST_F(MapKernels, HiddenColumnsWithAndWithoutRenormalising) {
  const int64_t rows = 33, cols = 1000;
  AttentionMap layer = randomLayer(2, rows, cols, 13);
  // Row 5 of head 1 holds all its weight in hidden columns: it stays zero when renormalised.
  std::fill(layer.weights.begin() + (rows + 5) * cols, layer.weights.begin() + (rows + 6) * cols, 0.0f);
  layer.weights[static_cast<std::size_t>((rows + 5) * cols)] = 1.0f;
  const std::vector<int64_t> hidden = {0, 7, 999, 2000, -1};  // the last two are outside: ignored
  const std::vector<DeviceMap> heads = uploadLayer(ctx(), layer);
  for (bool renormalise : {true, false}) {
    Reference want = head(layer, 1);
    for (int64_t r = 0; r < rows; ++r) {
      double before = 0, after = 0;
      for (int64_t c = 0; c < cols; ++c) {
        double& v = want[static_cast<std::size_t>(r * cols + c)];
        before += v;
        if (c == 0 || c == 7 || c == 999) v = 0;
        after += v;
      }
      const double gain = !renormalise ? 1.0 : after > 0 ? before / after : 0.0;
      for (int64_t c = 0; c < cols; ++c) want[static_cast<std::size_t>(r * cols + c)] *= gain;
    }
    expectClose(download(hideMapColumns(ctx(), heads[1], hidden, renormalise)), want, kAtol, kRtol,
                renormalise ? "hidden, renormalised" : "hidden, as given");
  }
}

TEST_F(MapKernels, RolloutMatchesTheDoubleProduct) {
  const int64_t n = 41, layers = 3;
  const AttentionMap stack = randomLayer(layers, n, n, 14);
  const std::vector<DeviceMap> maps = uploadLayer(ctx(), stack);  // one "head" per layer
  auto residual = [&](int64_t l) {
    Reference a = head(stack, l);
    for (int64_t r = 0; r < n; ++r) {
      double* row = a.data() + r * n;
      double sum = 0;
      for (int64_t c = 0; c < n; ++c) {
        row[c] = 0.5 * row[c] + (r == c ? 0.5 : 0.0);
        sum += row[c];
      }
      for (int64_t c = 0; c < n; ++c) row[c] /= sum;
    }
    return a;
  };
  Reference result = residual(0);
  for (int64_t l = 1; l < layers; ++l) {
    const Reference a = residual(l);
    Reference product(result.size(), 0.0);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t k = 0; k < n; ++k)
        for (int64_t c = 0; c < n; ++c)
          product[static_cast<std::size_t>(r * n + c)] +=
              a[static_cast<std::size_t>(r * n + k)] * result[static_cast<std::size_t>(k * n + c)];
    result = product;
  }
  expectClose(download(rolloutMaps(ctx(), maps, layers - 1)), result, kAtol, kRtol, "rollout through 3 layers");
  EXPECT_THROW(rolloutMaps(ctx(), maps, 3), InvalidArgument);
}

TEST_F(MapKernels, SummaryGivesTheRangeAndWhetherRowsAreDistributions) {
  const AttentionMap probabilities = randomLayer(1, 9, 301, 15);
  const MapSummary p = summarise(ctx(), uploadLayer(ctx(), probabilities).front());
  EXPECT_TRUE(p.probability);
  EXPECT_EQ(p.range.min, *std::min_element(probabilities.weights.begin(), probabilities.weights.end()));
  EXPECT_EQ(p.range.max, *std::max_element(probabilities.weights.begin(), probabilities.weights.end()));

  AttentionMap masked = probabilities;  // a fully masked row sums to 0: still probabilities
  std::fill(masked.weights.begin() + 301, masked.weights.begin() + 602, 0.0f);
  EXPECT_TRUE(summarise(ctx(), uploadLayer(ctx(), masked).front()).probability);
  AttentionMap scaled = probabilities;  // rows summing to 0.7
  for (float& v : scaled.weights) v *= 0.7f;
  EXPECT_FALSE(summarise(ctx(), uploadLayer(ctx(), scaled).front()).probability);
  const AttentionMap signedValues = randomLayer(1, 4, 5, 16, false);
  const MapSummary s = summarise(ctx(), uploadLayer(ctx(), signedValues).front());
  EXPECT_FALSE(s.probability);
  EXPECT_EQ(s.range.min, *std::min_element(signedValues.weights.begin(), signedValues.weights.end()));
}

TEST_F(MapKernels, DownsamplerReadsAHeadWhereItIs) {
  const AttentionMap layer = randomLayer(3, 29, 45, 17);
  const std::vector<DeviceMap> heads = uploadLayer(ctx(), layer);
  GpuDownsampler gpu(ctx());
  gpu.setMap(heads[2]);  // at offset 2 * 29 * 45 of the layer's tensor
  const auto rowEdges = binEdges(0, 29, 6), colEdges = binEdges(3, 45, 11);
  const Matrix want = downsampleReference(download(heads[2]), rowEdges, colEdges, Reduction::Max);
  expectClose(gpu.run(rowEdges, colEdges, Reduction::Max), Reference(want.values.begin(), want.values.end()), 0, 0,
              "max bins of head 2");
}

TEST_F(MapKernels, BadInputIsNamed) {
  const std::vector<DeviceMap> a = uploadLayer(ctx(), randomLayer(1, 3, 4, 18));
  const std::vector<DeviceMap> b = uploadLayer(ctx(), randomLayer(1, 4, 3, 19));
  try {
    subtractMaps(ctx(), a[0], b[0]);
    ADD_FAILURE() << "no error for maps of different shapes";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "difference");
  }
  try {
    combineMaps(ctx(), {}, Aggregation::Mean);
    ADD_FAILURE() << "no error for no maps";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "maps");
  }
}

}  // namespace
}  // namespace vkattn::viewer
