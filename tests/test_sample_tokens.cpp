// sampleTokens against the host sampler (drawToken, double precision) given the same uniform
// numbers: temperatures, top k below, at and above the device's 1024 candidates, top p, the whole
// vocabulary, ties at the top-k threshold, a softcap, temperature 0; a grid of numbers over one
// row reproducing its distribution; both kernel profiles; NaN, numbers outside [0, 1) and bad
// arguments named. The device weighs in f32: where a draw lies within 2e-6 of a boundary between
// two tokens, either neighbour is accepted.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/models/token_sampler.hpp"
#include "vkattn/ops/row_ops.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

constexpr double kBoundary = 2e-6;

std::vector<float> uniformNumbers(std::size_t n, uint64_t seed) {
  TokenSampler stream({.temperature = 1.0f, .seed = seed});
  std::vector<float> u;
  for (std::size_t i = 0; i < n; ++i)
    u.push_back(std::min(static_cast<float>(stream.nextUniform()), std::nextafter(1.0f, 0.0f)));
  return u;
}

// The rank of `token` in the host's order (descending logit, ties to the lower id).
std::size_t rankOf(std::span<const float> row, int32_t token) {
  std::size_t rank = 0;
  for (std::size_t i = 0; i < row.size(); ++i)
    if (row[i] > row[static_cast<std::size_t>(token)] ||
        (row[i] == row[static_cast<std::size_t>(token)] && static_cast<int32_t>(i) < token))
      ++rank;
  return rank;
}

std::vector<float> softcapped(std::vector<float> row, float c) {
  for (float& v : row) v = static_cast<float>(c * std::tanh(static_cast<double>(v) / c));
  return row;
}

// Draws every row on the device and checks each against the host; returns how many the device
// left to the host (-1).
int expectDraws(Context& ctx, const std::vector<float>& logits, int64_t rows, int64_t vocab, const TokenDraw& draw,
                uint64_t seed) {
  const std::vector<float> u = uniformNumbers(static_cast<std::size_t>(rows), seed);
  Tensor ids = ctx.tensor({rows}, DType::I32);
  sampleTokens(ctx, ctx.tensor({rows, vocab}, logits), ctx.tensor({rows}, u), ids, draw);
  const std::vector<int32_t> device = ids.downloadInt();
  const SamplerOptions options{.temperature = draw.temperature, .topK = draw.topK, .topP = draw.topP};
  int leftToHost = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const auto begin = logits.begin() + r * vocab;
    const std::vector<float> row =
        draw.softcap > 0 ? softcapped({begin, begin + vocab}, draw.softcap) : std::vector<float>(begin, begin + vocab);
    const double ur = u[static_cast<std::size_t>(r)];
    const int32_t host = drawToken(row, options, ur);
    const int32_t below = drawToken(row, options, std::max(0.0, ur - kBoundary));
    const int32_t above = drawToken(row, options, std::min(1.0 - 1e-12, ur + kBoundary));
    const int32_t got = device[static_cast<std::size_t>(r)];
    const std::string where = "row " + std::to_string(r) + " of " + std::to_string(vocab) + " tokens, T " +
                              std::to_string(draw.temperature) + ", top k " + std::to_string(draw.topK) + ", top p " +
                              std::to_string(draw.topP) + ", u " + std::to_string(ur);
    if (got < 0) {
      ++leftToHost;
      // Only a draw beyond the candidates (or a kept mass the candidates cannot tell) goes back.
      const bool unknownMass = draw.topK > kSampleCandidates && draw.topK < vocab;
      EXPECT_TRUE(unknownMass || rankOf(row, host) + 8 >= static_cast<std::size_t>(kSampleCandidates) ||
                  draw.topP < 1.0f)
          << where << ": left to the host, host drew rank " << rankOf(row, host);
      EXPECT_TRUE(draw.temperature > 0.0f && (vocab > kSampleCandidates) &&
                  (draw.topK == 0 || draw.topK > kSampleCandidates))
          << where << ": the device holds every kept token";
    } else if (host == below && host == above) {
      EXPECT_EQ(got, host) << where;
    } else {
      EXPECT_TRUE(got == host || got == below || got == above) << where << ": " << got;
    }
  }
  return leftToHost;
}

// Logits spread evenly over [-scale, scale].
std::vector<float> logitRows(int64_t rows, int64_t vocab, float scale, uint64_t seed) {
  std::vector<float> x = randomValues(static_cast<std::size_t>(rows * vocab), seed);
  for (float& v : x) v *= scale;
  return x;
}

TEST_F(VkattnTest, SampleTokensDrawsTheHostSamplersTokens) {
  const int64_t rows = 32;
  for (int64_t vocab : {7, 1000, 5000}) {
    const std::vector<float> peaked = logitRows(rows, vocab, 4.0f, 400 + static_cast<uint64_t>(vocab));
    const std::vector<float> flat = logitRows(rows, vocab, 0.5f, 500 + static_cast<uint64_t>(vocab));
    uint64_t seed = 1;
    for (const TokenDraw& draw :
         {TokenDraw{.temperature = 0.8f, .topK = 40, .topP = 0.95f}, TokenDraw{.temperature = 1.0f, .topK = 1},
          TokenDraw{.temperature = 1.3f}, TokenDraw{.temperature = 0.7f, .topP = 0.5f},
          TokenDraw{.temperature = 1.0f, .topK = 1024, .topP = 0.99f}, TokenDraw{.temperature = 1.0f, .topK = 2000},
          TokenDraw{.temperature = 0.0f}})
      for (const std::vector<float>* logits : {&peaked, &flat}) expectDraws(ctx(), *logits, rows, vocab, draw, ++seed);
  }
}

TEST_F(VkattnTest, SampleTokensLeavesToTheHostOnlyDrawsBeyondItsCandidates) {
  // A flat row of 5000 tokens: most of the mass lies past the 1024 most likely, so many draws go
  // back; a peaked one keeps nearly all of it there.
  const int64_t rows = 64, vocab = 5000;
  EXPECT_GT(expectDraws(ctx(), logitRows(rows, vocab, 0.1f, 601), rows, vocab, {.temperature = 1.0f}, 7), 16);
  EXPECT_LT(expectDraws(ctx(), logitRows(rows, vocab, 12.0f, 602), rows, vocab, {.temperature = 1.0f}, 8), 4);
}

TEST_F(VkattnTest, SampleTokensTakesTheLowestIdsAmongTiesAndCapsLogits) {
  // 3000 equal logits: every candidate ties at the threshold; top k 40 keeps ids 0..39.
  const int64_t vocab = 3000, rows = 16;
  const std::vector<float> even(static_cast<std::size_t>(rows * vocab), 0.25f);
  expectDraws(ctx(), even, rows, vocab, {.temperature = 1.0f, .topK = 40}, 11);
  expectDraws(ctx(), even, rows, vocab, {.temperature = 1.0f}, 12);
  // A few large logits equal at the top, the rest below; a row of -inf.
  std::vector<float> ties = logitRows(rows, vocab, 1.0f, 603);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c : {2999, 17, 1500, 16}) ties[static_cast<std::size_t>(r * vocab + c)] = 9.0f;
  std::fill(ties.begin(), ties.begin() + vocab, -std::numeric_limits<float>::infinity());
  for (const TokenDraw& draw : {TokenDraw{.temperature = 1.0f, .topK = 3}, TokenDraw{.temperature = 0.0f},
                                TokenDraw{.temperature = 2.0f, .topP = 0.6f}})
    expectDraws(ctx(), ties, rows, vocab, draw, 13);
  // Gemma 2's final softcap: logits squeezed into (-5, 5) (the device's tanh in f32, far from
  // saturation, keeps their order).
  expectDraws(ctx(), logitRows(rows, vocab, 12.0f, 604), rows, vocab,
              {.temperature = 1.0f, .topK = 100, .softcap = 5.0f}, 14);
}

TEST_F(VkattnTest, SampleTokensReproducesTheDistribution) {
  // One row drawn with a grid of numbers: each token's share of the grid is its probability.
  const int64_t vocab = 50, grid = 2048;
  const std::vector<float> row = logitRows(1, vocab, 1.5f, 605);
  std::vector<float> logits, u;
  for (int64_t i = 0; i < grid; ++i) {
    logits.insert(logits.end(), row.begin(), row.end());
    u.push_back((static_cast<float>(i) + 0.5f) / static_cast<float>(grid));
  }
  const TokenDraw draw{.temperature = 1.0f, .topP = 0.9f};
  Tensor ids = ctx().tensor({grid}, DType::I32);
  sampleTokens(ctx(), ctx().tensor({grid, vocab}, logits), ctx().tensor({grid}, u), ids, draw);
  std::vector<double> share(static_cast<std::size_t>(vocab));
  for (int32_t id : ids.downloadInt()) share[static_cast<std::size_t>(id)] += 1.0 / grid;
  // The host's probabilities after the nucleus cut.
  std::vector<int32_t> order(static_cast<std::size_t>(vocab));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return row[a] > row[b]; });
  std::vector<double> weight(static_cast<std::size_t>(vocab));
  double total = 0, mass = 0, kept = 0;
  for (int32_t t : order) total += weight[static_cast<std::size_t>(t)] = std::exp(row[t] - row[order[0]]);
  for (int32_t t : order) {
    if (mass >= draw.topP) weight[static_cast<std::size_t>(t)] = 0;
    mass += std::exp(row[t] - row[order[0]]) / total;
    kept += weight[static_cast<std::size_t>(t)];
  }
  for (int64_t t = 0; t < vocab; ++t)
    EXPECT_NEAR(share[static_cast<std::size_t>(t)], weight[static_cast<std::size_t>(t)] / kept, 1.0 / grid + 1e-9)
        << "token " << t;
}

TEST_F(VkattnTest, SampleTokensOnTheGpuProfile) {
  Context gpu({.profile = KernelProfile::Gpu});
  const int64_t rows = 8, vocab = 32001;
  expectDraws(gpu, logitRows(rows, vocab, 3.0f, 606), rows, vocab, {.temperature = 0.9f, .topK = 50, .topP = 0.9f}, 15);
  expectDraws(gpu, logitRows(rows, vocab, 3.0f, 607), rows, vocab, {.temperature = 1.0f}, 16);
}

TEST_F(VkattnTest, SampleTokensNamesBadInput) {
  Context& c = ctx();
  Tensor logits = c.tensor({2, 10}, logitRows(2, 10, 1.0f, 608));
  Tensor u = c.tensor({2}, std::vector<float>{0.5f, 0.25f});
  Tensor ids = c.tensor({2}, DType::I32);
  const TokenDraw ok{.temperature = 1.0f};
  EXPECT_EQ(invalidArgumentOf([&] { sampleTokens(c, logits, u, ids, {.temperature = -1.0f}); }), "temperature");
  EXPECT_EQ(invalidArgumentOf([&] { sampleTokens(c, logits, u, ids, {.temperature = 1.0f, .topK = -1}); }), "topK");
  EXPECT_EQ(invalidArgumentOf([&] { sampleTokens(c, logits, u, ids, {.temperature = 1.0f, .topP = 0.0f}); }), "topP");
  EXPECT_EQ(invalidArgumentOf([&] { sampleTokens(c, logits, u, ids, {.temperature = 1.0f, .softcap = -1.0f}); }),
            "softcap");
  EXPECT_EQ(invalidArgumentOf([&] { sampleTokens(c, c.tensor({2, 10}, DType::F16), u, ids, ok); }), "logits");
  EXPECT_EQ(invalidArgumentOf([&] { sampleTokens(c, c.tensor({20}), c.tensor({1}), c.tensor({1}, DType::I32), ok); }),
            "logits");
  EXPECT_EQ(invalidArgumentOf([&] { sampleTokens(c, logits, c.tensor({3}), ids, ok); }), "uniforms");
  EXPECT_EQ(invalidArgumentOf([&] { sampleTokens(c, logits, u, c.tensor({2}), ok); }), "ids");
  // Values the device finds.
  std::vector<float> withNan = logitRows(2, 10, 1.0f, 609);
  withNan[13] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(invalidArgumentOf([&] { sampleTokens(c, c.tensor({2, 10}, withNan), u, ids, ok); }), "logits");
  EXPECT_EQ(invalidArgumentOf([&] {
              sampleTokens(c, logits, c.tensor({2}, std::vector<float>{0.5f, 1.0f}), ids, ok);
            }),
            "uniforms");
  // The context still works afterwards.
  sampleTokens(c, logits, u, ids, ok);
  EXPECT_EQ(ids.downloadInt().size(), 2u);
}

}  // namespace
}  // namespace vkattn::test
