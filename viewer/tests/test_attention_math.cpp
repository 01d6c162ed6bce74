// Rollout, head aggregation, hidden columns, differences and row statistics against values
// worked out by hand or in double precision.
#include <gtest/gtest.h>

#include <cmath>

#include "sources/attention_math.hpp"
#include "sources/selection.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

AttentionMap twoHeads() {
  // head 0: [[0.5, 0.5, 0], [0.2, 0.3, 0.5]], head 1: [[0.1, 0.6, 0.3], [0.8, 0.1, 0.1]]
  return {2, 2, 3, {0.5f, 0.5f, 0.0f, 0.2f, 0.3f, 0.5f, 0.1f, 0.6f, 0.3f, 0.8f, 0.1f, 0.1f}};
}

using test::VkattnTest;

// The selection reads device maps: these tests upload the hand-made layers and read the result back.
using SelectionOnDevice = VkattnTest;

std::vector<float> values(const DisplayMap& map) {
  return download(map.values).values;
}
float at(const DisplayMap& map, int64_t r, int64_t c) {
  return download(map.values).at(r, c);
}

Matrix matrix(int64_t rows, int64_t cols, std::vector<float> values) {
  Matrix m(rows, cols);
  m.values = std::move(values);
  return m;
}

TEST(AttentionMath, HeadMapAndAggregation) {
  const AttentionMap layer = twoHeads();
  EXPECT_EQ(headMap(layer, 1).values, (std::vector<float>{0.1f, 0.6f, 0.3f, 0.8f, 0.1f, 0.1f}));
  const Matrix mean = aggregateHeads(layer, Aggregation::Mean);
  const std::vector<float> expectedMean = {0.3f, 0.55f, 0.15f, 0.5f, 0.2f, 0.3f};
  for (std::size_t i = 0; i < expectedMean.size(); ++i) EXPECT_NEAR(mean.values[i], expectedMean[i], 1e-7) << i;
  EXPECT_EQ(aggregateHeads(layer, Aggregation::Max).values, (std::vector<float>{0.5f, 0.6f, 0.3f, 0.8f, 0.3f, 0.5f}));
  EXPECT_THROW(headMap(layer, 2), InvalidArgument);
}

TEST(AttentionMath, RolloutOfOneLayerMixesInTheResidual) {
  // 0.5 A + 0.5 I of a row-stochastic A is already row-stochastic.
  const Matrix a = matrix(2, 2, {0.2f, 0.8f, 0.6f, 0.4f});
  const Matrix r = rollout({a}, 0);
  EXPECT_NEAR(r.at(0, 0), 0.6, 1e-6);
  EXPECT_NEAR(r.at(0, 1), 0.4, 1e-6);
  EXPECT_NEAR(r.at(1, 0), 0.3, 1e-6);
  EXPECT_NEAR(r.at(1, 1), 0.7, 1e-6);
}

TEST(AttentionMath, RolloutMultipliesLaterLayersOnTheLeft) {
  const Matrix a0 = matrix(3, 3, {1, 0, 0, 0.5f, 0.5f, 0, 0.2f, 0.3f, 0.5f});
  const Matrix a1 = matrix(3, 3, {0.1f, 0.2f, 0.7f, 0.3f, 0.3f, 0.4f, 0, 0, 1});
  auto residual = [](const Matrix& a, int64_t r, int64_t c) { return 0.5 * a.at(r, c) + (r == c ? 0.5 : 0.0); };
  const Matrix r = rollout({a0, a1}, 1);
  for (int64_t i = 0; i < 3; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < 3; ++j) {
      double expected = 0;
      for (int64_t k = 0; k < 3; ++k) expected += residual(a1, i, k) * residual(a0, k, j);
      EXPECT_NEAR(r.at(i, j), expected, 1e-6) << i << "," << j;
      sum += r.at(i, j);
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  // Rollout through layer 0 ignores later layers.
  EXPECT_NEAR(rollout({a0, a1}, 0).at(1, 0), 0.25, 1e-6);
  EXPECT_THROW(rollout({matrix(2, 3, {0, 0, 0, 0, 0, 0})}, 0), InvalidArgument);
  EXPECT_THROW(rollout({a0}, 1), InvalidArgument);
}

TEST(AttentionMath, RolloutRenormalisesRowsThatDoNotSumToOne) {
  const Matrix a = matrix(2, 2, {2.0f, 0.0f, 0.0f, 0.0f});
  const Matrix r = rollout({a}, 0);
  EXPECT_NEAR(r.at(0, 0), 1.0, 1e-6);  // (0.5 * 2 + 0.5) / 1.5
  EXPECT_NEAR(r.at(1, 1), 1.0, 1e-6);  // an empty row keeps its residual
}

TEST(AttentionMath, HidingColumnsRenormalisesRows) {
  const Matrix m = matrix(3, 4, {0.5f, 0.25f, 0.125f, 0.125f, 1.0f, 0.0f, 0.0f, 0.0f, 0.1f, 0.2f, 0.3f, 0.4f});
  const Matrix h = hideColumns(m, {0, 7});  // 7 is outside the map and ignored
  EXPECT_EQ(h.at(0, 0), 0.0f);
  EXPECT_NEAR(h.at(0, 1), 0.5, 1e-6);
  EXPECT_NEAR(h.at(0, 2), 0.25, 1e-6);
  EXPECT_NEAR(h.at(0, 3), 0.25, 1e-6);
  for (int64_t c = 0; c < 4; ++c) EXPECT_EQ(h.at(1, c), 0.0f) << "a row with nothing left stays zero";
  EXPECT_NEAR(h.at(2, 1) + h.at(2, 2) + h.at(2, 3), 1.0, 1e-6);
  EXPECT_NEAR(h.at(2, 3) / h.at(2, 1), 2.0, 1e-5) << "ratios between kept columns are unchanged";
  EXPECT_EQ(hideColumns(m, {}).values, m.values);
}

TEST(AttentionMath, DifferenceIsSignedAndChecksShapes) {
  const Matrix a = matrix(1, 3, {0.5f, 0.3f, 0.2f}), b = matrix(1, 3, {0.1f, 0.6f, 0.3f});
  const Matrix d = difference(a, b);
  EXPECT_NEAR(d.at(0, 0), 0.4, 1e-6);
  EXPECT_NEAR(d.at(0, 1), -0.3, 1e-6);
  EXPECT_NEAR(d.at(0, 2), -0.1, 1e-6);
  EXPECT_THROW(difference(a, matrix(3, 1, {0, 0, 0})), InvalidArgument);
}

TEST(AttentionMath, EntropyAndArgmax) {
  const Matrix m = matrix(4, 4, {0.25f, 0.25f, 0.25f, 0.25f, 0, 0, 1, 0, 0.5f, 0.5f, 0, 0, 0, 0, 0, 0});
  EXPECT_NEAR(rowEntropy(m, 0), 2.0, 1e-9);
  EXPECT_NEAR(rowEntropy(m, 1), 0.0, 1e-9);
  EXPECT_NEAR(rowEntropy(m, 2), 1.0, 1e-9);
  EXPECT_EQ(rowEntropy(m, 3), 0.0);
  EXPECT_EQ(rowArgmax(m, 0), 0) << "ties go to the first column";
  EXPECT_EQ(rowArgmax(m, 1), 2);
  // Unnormalised rows are normalised first.
  const Matrix scaled = matrix(1, 2, {3.0f, 3.0f});
  EXPECT_NEAR(rowEntropy(scaled, 0), 1.0, 1e-9);
}

TEST_F(SelectionOnDevice, BuildsTheChosenMap) {
  AttentionSet set;
  AttentionKind kind;
  kind.id = "encoder";
  kind.title = "Encoder";
  kind.rowTokens = kind.colTokens = {"a", "b"};
  kind.layers = {uploadLayer(ctx(), {2, 2, 2, {1, 0, 0, 1, 0.5f, 0.5f, 0.5f, 0.5f}}),
                 uploadLayer(ctx(), {2, 2, 2, {0, 1, 1, 0, 0, 1, 1, 0}})};
  set.kinds.push_back(kind);

  Selection s;
  s.a = {0, 1, HeadMode::Single};
  EXPECT_EQ(values(buildDisplayMap(ctx(), set, s)), (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f}));
  s.a.mode = HeadMode::Mean;
  EXPECT_EQ(values(buildDisplayMap(ctx(), set, s)), (std::vector<float>{0.75f, 0.25f, 0.25f, 0.75f}));
  s.difference = true;
  s.b = {1, 0, HeadMode::Single};
  const DisplayMap diff = buildDisplayMap(ctx(), set, s);
  EXPECT_TRUE(diff.signedValues);
  EXPECT_NEAR(at(diff, 0, 0), 0.75, 1e-6);
  EXPECT_NEAR(at(diff, 0, 1), -0.75, 1e-6);
  s.difference = false;
  s.rollout = true;
  s.a = {1, 0, HeadMode::Single};
  EXPECT_NEAR(at(buildDisplayMap(ctx(), set, s), 0, 0), 0.5, 1e-6);
  s.a.layer = 5;
  EXPECT_THROW(buildDisplayMap(ctx(), set, s), InvalidArgument);
  clampSelection(set, s);
  EXPECT_EQ(s.a.layer, 1);
}

TEST_F(SelectionOnDevice, TitlesNameOnlyTheChoicesThereAre) {
  AttentionSet set;
  AttentionKind kind;
  kind.id = "attention";
  kind.title = "Scores";
  kind.rowTokens = kind.colTokens = {"a", "b"};
  kind.layers = {uploadLayer(ctx(), {1, 2, 2, {0.5f, 0.5f, 0.5f, 0.5f}})};
  set.kinds.push_back(kind);
  Selection s;
  EXPECT_EQ(buildDisplayMap(ctx(), set, s).title, "Scores") << "one layer, one head: nothing to name";
  s.hiddenColumns = {1};
  EXPECT_EQ(buildDisplayMap(ctx(), set, s).title, "Scores | hidden: 1 'b' (rows renormalised)");
  set.kinds[0].title.clear();
  EXPECT_EQ(buildDisplayMap(ctx(), set, s).title, "hidden: 1 'b' (rows renormalised)");
  s.hiddenColumns.clear();
  EXPECT_EQ(buildDisplayMap(ctx(), set, s).title, "") << "no title at all";
  set.kinds[0].layers = {uploadLayer(ctx(), {2, 2, 2, {1, 0, 0, 1, 0, 1, 1, 0}})};
  s.a = {0, 1, HeadMode::Single};
  EXPECT_EQ(buildDisplayMap(ctx(), set, s).title, "head 1") << "one layer: the head alone";
  set.kinds[0].layers.push_back(set.kinds[0].layers[0]);
  s.a = {1, 0, HeadMode::Max};
  EXPECT_EQ(buildDisplayMap(ctx(), set, s).title, "layer 1, max of heads");
}

// One rule for every row: probability maps renormalise after hiding, anything else is drawn as
// given, including rows whose sum is zero or negative (which renormalising would have zeroed).
TEST(AttentionMath, NonProbabilityMapsAreNeverRescaled) {
  const Matrix scores = matrix(3, 3, {2.0f, -1.0f, 0.5f, -1.0f, -2.0f, 0.5f, 1.0f, 1.0f, -2.0f});
  EXPECT_FALSE(isProbabilityMap(scores));
  const Matrix shown = hideColumns(scores, {0}, isProbabilityMap(scores));
  for (int64_t r = 0; r < 3; ++r) {
    EXPECT_EQ(shown.at(r, 0), 0.0f);
    for (int64_t c = 1; c < 3; ++c) EXPECT_EQ(shown.at(r, c), scores.at(r, c)) << "row " << r << " col " << c;
  }
  const Matrix probabilities = matrix(2, 3, {0.5f, 0.25f, 0.25f, 0.0f, 0.0f, 0.0f});  // a fully masked row sums to 0
  EXPECT_TRUE(isProbabilityMap(probabilities));
  EXPECT_FALSE(isProbabilityMap(matrix(1, 2, {0.7f, 0.7f})));
  EXPECT_FALSE(isProbabilityMap(matrix(1, 2, {1.5f, -0.5f})));
}

TEST_F(SelectionOnDevice, DisplayMapSaysWhatWasHiddenAndHowRowsWereTreated) {
  AttentionSet set;
  AttentionKind kind;
  kind.id = "scores";
  kind.title = "Scores";
  kind.rowTokens = {"a", "b"};
  kind.colTokens = {"<s>", "x", "y"};
  kind.layers.push_back(uploadLayer(ctx(), {1, 2, 3, {3.0f, 1.0f, -2.0f, -1.0f, -1.0f, 0.5f}}));
  set.kinds.push_back(kind);
  Selection selection;
  selection.hiddenColumns = {0};
  DisplayMap raw = buildDisplayMap(ctx(), set, selection);
  EXPECT_FALSE(raw.probability);
  EXPECT_FALSE(raw.renormalised);
  EXPECT_NE(raw.title.find("hidden: 0 '<s>' (values as given)"), std::string::npos) << raw.title;
  EXPECT_EQ(at(raw, 1, 1), -1.0f) << "a row summing below zero keeps its values";
  EXPECT_EQ(at(raw, 1, 2), 0.5f);
  EXPECT_EQ(raw.hiddenColumns, std::vector<int64_t>{0});

  set.kinds[0].layers[0] = uploadLayer(ctx(), {1, 2, 3, {0.5f, 0.25f, 0.25f, 0.2f, 0.4f, 0.4f}});
  DisplayMap probabilities = buildDisplayMap(ctx(), set, selection);
  EXPECT_TRUE(probabilities.renormalised);
  EXPECT_NE(probabilities.title.find("(rows renormalised)"), std::string::npos) << probabilities.title;
  EXPECT_NEAR(at(probabilities, 0, 1), 0.5, 1e-6);
  EXPECT_NEAR(at(probabilities, 1, 2), 0.5, 1e-6);
}

}  // namespace
}  // namespace vkattn::viewer
