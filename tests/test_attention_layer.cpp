// The MultiHeadAttention layer (projections + fused attention + output projection) against a
// double-precision reference written from the documents' MultiHeadAttention /
// GroupedQueryAttention classes: MHA, GQA and MQA, self and cross input, causal masking,
// RoPE, incremental decoding through the key/value cache, and the attention probabilities.
#include <cmath>

#include "support/compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/models/attention_layer.hpp"
#include "vkattn/reference/attention_layer_reference.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

const Tolerance kWeights = toleranceFor(Checked::AttentionWeights, DType::F32);

// f32 reference path: worst observed ~1e-6; projections sum 96 products per output.
const double kAtol = toleranceFor(Checked::AttentionLayer, DType::F32).atol,
             kRtol = toleranceFor(Checked::AttentionLayer, DType::F32).rtol;

using LayerCase = AttentionLayerProblem;
using HostWeights = AttentionLayerHostWeights;

HostWeights makeWeights(const LayerCase& c, uint64_t seed) {
  const int64_t dh = c.d / c.heads, qw = c.heads * dh, kvw = c.kvHeads * dh;
  const float s = 1.0f / std::sqrt(static_cast<float>(c.d));
  return {randomValues(qw * c.d, seed, -s, s),      randomValues(kvw * c.d, seed + 1, -s, s),
          randomValues(kvw * c.d, seed + 2, -s, s), randomValues(c.d * qw, seed + 3, -s, s),
          randomValues(qw, seed + 4, -0.1f, 0.1f),  randomValues(kvw, seed + 5, -0.1f, 0.1f),
          randomValues(kvw, seed + 6, -0.1f, 0.1f), randomValues(c.d, seed + 7, -0.1f, 0.1f)};
}

MultiHeadAttention makeLayer(Context& ctx, const LayerCase& c, const HostWeights& w) {
  const int64_t dh = c.d / c.heads, qw = c.heads * dh, kvw = c.kvHeads * dh;
  AttentionLayerConfig config{.modelDim = c.d, .heads = c.heads, .kvHeads = c.kvHeads, .headDim = 0, .rope = {}};
  if (c.rope) config.rope = RopeOptions{};
  AttentionLayerWeights weights{ctx.tensor({qw, c.d}, w.q), ctx.tensor({kvw, c.d}, w.k), ctx.tensor({kvw, c.d}, w.v),
                                ctx.tensor({c.d, qw}, w.o), ctx.tensor({qw}, w.qb),      ctx.tensor({kvw}, w.kb),
                                ctx.tensor({kvw}, w.vb),    ctx.tensor({c.d}, w.ob)};
  return MultiHeadAttention(ctx, config, std::move(weights));
}

// A layer of case c with seeded weights and a seeded input x [B, L, d].
struct LayerWithInput {
  LayerCase c;
  HostWeights w;
  MultiHeadAttention layer;
  std::vector<float> x;
  Tensor tx;
};

LayerWithInput layerWithInput(Context& ctx, const LayerCase& c, uint64_t weightSeed, uint64_t inputSeed) {
  HostWeights w = makeWeights(c, weightSeed);
  MultiHeadAttention layer = makeLayer(ctx, c, w);
  auto x = randomValues(c.batch * c.len * c.d, inputSeed);
  Tensor tx = ctx.tensor({c.batch, c.len, c.d}, x);
  return {c, std::move(w), std::move(layer), std::move(x), std::move(tx)};
}

class AttentionLayer : public VkattnTest, public ::testing::WithParamInterface<LayerCase> {};

TEST_P(AttentionLayer, MatchesReference) {
  const LayerCase c = GetParam();
  const HostWeights w = makeWeights(c, 1000 + c.kvHeads);
  MultiHeadAttention layer = makeLayer(ctx(), c, w);
  const auto x = randomValues(c.batch * c.len * c.d, 11);
  const auto src = c.cross ? randomValues(c.batch * c.sourceLen * c.d, 12) : x;
  Tensor tx = ctx().tensor({c.batch, c.len, c.d}, x);
  Tensor tsrc = ctx().tensor({c.batch, c.sourceLen, c.d}, src);
  Tensor probs;
  Tensor out = layer.forward(ctx(), tx, c.cross ? tsrc : tx, {.causal = c.causal, .weights = &probs});
  std::vector<double> expectedProbs;
  const std::vector<double> expected = attentionLayerRef(c, w, x, src, &expectedProbs);
  EXPECT_TRUE(allClose(out.download(), expected, kAtol, kRtol));
  EXPECT_TRUE(allClose(probs.download(), expectedProbs, kWeights.atol, kWeights.rtol));
}

LayerCase mha() {
  return {};
}
LayerCase gqa(int64_t kv) {
  LayerCase c;
  c.kvHeads = kv;
  return c;
}
LayerCase cross(int64_t kv) {
  LayerCase c;
  c.kvHeads = kv;
  c.cross = true;
  c.len = 5;
  c.sourceLen = 11;
  return c;
}
LayerCase causal(int64_t kv, bool rope) {
  LayerCase c;
  c.kvHeads = kv;
  c.causal = true;
  c.rope = rope;
  return c;
}

INSTANTIATE_TEST_SUITE_P(Variants, AttentionLayer,
                         ::testing::Values(mha(), gqa(3), gqa(2), gqa(1), cross(6), cross(2), causal(6, false),
                                           causal(2, true), gqa(1)));

// The probabilities of a few chosen heads, in the order asked for, come from the pass that makes
// the output: both still match the reference (the chosen heads' context is P·V, the others fused).
TEST_F(VkattnTest, ChosenHeadsWeightsComeWithTheOutput) {
  LayerCase shape = causal(2, false);
  shape.len = shape.sourceLen = 13;
  auto [c, w, layer, x, tx] = layerWithInput(ctx(), shape, 41, 43);
  const std::vector<int64_t> heads = {4, 1};
  Tensor probs;
  Tensor out = layer.forward(ctx(), tx, tx, {.causal = true, .weights = &probs, .weightHeads = heads});
  std::vector<double> allProbs;
  const std::vector<double> expected = attentionLayerRef(c, w, x, x, &allProbs);
  ASSERT_EQ(probs.shape(), (Shape{c.batch, 2, c.len, c.len}));
  const int64_t map = c.len * c.len;
  std::vector<double> expectedProbs;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h : heads) {
      const auto first = allProbs.begin() + (b * c.heads + h) * map;
      expectedProbs.insert(expectedProbs.end(), first, first + map);
    }
  EXPECT_TRUE(allClose(out.download(), expected, kAtol, kRtol));
  EXPECT_TRUE(allClose(probs.download(), expectedProbs, kWeights.atol, kWeights.rtol));
}

// A keep-mask per sequence (shared by the heads): the heads left to the fused kernel read it
// whole. Checked against the layer without weights (all heads fused, which the reference checks
// above) and the chosen head's masked cells; a mask per head takes every head's weights or none.
TEST_F(VkattnTest, ChosenHeadsWeightsUnderAMask) {
  auto [c, w, layer, x, tx] = layerWithInput(ctx(), gqa(3), 51, 53);
  std::vector<int32_t> keep(static_cast<std::size_t>(c.batch * c.len * c.len));
  for (std::size_t i = 0; i < keep.size(); ++i)
    keep[i] = (i * 7919 % 5 != 0) || i % static_cast<std::size_t>(c.len) == 0;
  Tensor mask = Tensor::fromHostInt(ctx().device(), {c.batch, 1, c.len, c.len}, keep);
  Tensor fused = layer.forward(ctx(), tx, tx, {.keepMask = mask.view()});
  Tensor probs;
  Tensor out = layer.forward(ctx(), tx, tx, {.keepMask = mask.view(), .weights = &probs, .weightHeads = {2}});
  const auto fusedValues = fused.download();
  EXPECT_TRUE(allClose(out.download(), std::vector<double>(fusedValues.begin(), fusedValues.end()), kAtol, kRtol));
  const auto p = probs.download();
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t i = 0; i < c.len * c.len; ++i)
      if (!keep[static_cast<std::size_t>(b * c.len * c.len + i)]) {
        EXPECT_EQ(p[static_cast<std::size_t>(b * c.len * c.len + i)], 0.0f) << "sequence " << b << " cell " << i;
      }
  Tensor perHead =
      Tensor::fromHostInt(ctx().device(), {c.batch, c.heads, c.len, c.len},
                          std::vector<int32_t>(static_cast<std::size_t>(c.batch * c.heads * c.len * c.len), 1));
  EXPECT_THROW(layer.forward(ctx(), tx, tx, {.keepMask = perHead.view(), .weights = &probs, .weightHeads = {2}}),
               Unsupported);
  Tensor all = layer.forward(ctx(), tx, tx, {.keepMask = perHead.view(), .weights = &probs});
  EXPECT_EQ(probs.shape(), (Shape{c.batch, c.heads, c.len, c.len}));
}

TEST_F(VkattnTest, IncrementalDecodingMatchesFullPass) {
  // One token at a time through the cache must give the rows of one causal pass (RoPE, GQA).
  LayerCase c = causal(2, true);
  c.batch = 1;
  c.len = c.sourceLen = 9;
  const HostWeights w = makeWeights(c, 77);
  MultiHeadAttention layer = makeLayer(ctx(), c, w);
  const auto x = randomValues(c.len * c.d, 21);
  const std::vector<double> expected = attentionLayerRef(c, w, x, x, nullptr);
  KeyValueCache cache = layer.makeCache(ctx(), 1, c.len);
  Tensor tx = ctx().tensor({c.len, c.d}, x);
  std::vector<float> got;
  for (int64_t t = 0; t < c.len; ++t) {
    const TensorView row = tx.view().sliced(0, t, 1);
    Tensor out = ctx().tensor({1, c.d});
    layer.append(ctx(), row, cache);
    layer.attend(ctx(), row, cache, out, {.causal = true});
    const auto r = out.download();
    got.insert(got.end(), r.begin(), r.end());
  }
  EXPECT_EQ(cache.length(), c.len);
  EXPECT_TRUE(allClose(got, expected, kAtol, kRtol));
}

// The same layer with q, k and v stacked into one weight (AttentionLayerWeights::qkv).
MultiHeadAttention makeStackedLayer(Context& ctx, const LayerCase& c, const HostWeights& w) {
  const int64_t dh = c.d / c.heads, qw = c.heads * dh, kvw = c.kvHeads * dh;
  AttentionLayerConfig config{.modelDim = c.d, .heads = c.heads, .kvHeads = c.kvHeads};
  if (c.rope) config.rope = RopeOptions{};
  std::vector<float> qkv = w.q, bias = w.qb;
  qkv.insert(qkv.end(), w.k.begin(), w.k.end());
  qkv.insert(qkv.end(), w.v.begin(), w.v.end());
  bias.insert(bias.end(), w.kb.begin(), w.kb.end());
  bias.insert(bias.end(), w.vb.begin(), w.vb.end());
  AttentionLayerWeights weights{.o = ctx.tensor({c.d, qw}, w.o),
                                .oBias = ctx.tensor({c.d}, w.ob),
                                .qkv = ctx.tensor({qw + 2 * kvw, c.d}, qkv),
                                .qkvBias = ctx.tensor({qw + 2 * kvw}, bias)};
  return MultiHeadAttention(ctx, config, std::move(weights));
}

// selfAttend over a prompt chunk, then one token at a time, gives the rows of one causal pass:
// with RoPE one product and one RoPE-and-append dispatch a step (ropeAppend; cache rows of two
// sequences apart), without it the separate path over views of the stacked weight.
TEST_F(VkattnTest, SelfAttendWithStackedWeightsMatchesFullPass) {
  for (bool rope : {true, false}) {
    SCOPED_TRACE(rope ? "rope" : "no rope");
    LayerCase c = causal(2, rope);
    c.len = c.sourceLen = 6;
    const HostWeights w = makeWeights(c, 78);
    MultiHeadAttention layer = makeStackedLayer(ctx(), c, w);
    const auto x = randomValues(c.batch * c.len * c.d, 22);
    const std::vector<double> expected = attentionLayerRef(c, w, x, x, nullptr);
    KeyValueCache cache = layer.makeCache(ctx(), c.batch, c.len + 2);
    std::vector<float> got(x.size());
    for (int64_t t = 0, n = 3; t < c.len; t += n, n = 1) {
      std::vector<float> chunk;  // positions t .. t + n of every sequence: [B, n, d]
      for (int64_t b = 0; b < c.batch; ++b)
        chunk.insert(chunk.end(), x.begin() + (b * c.len + t) * c.d, x.begin() + (b * c.len + t + n) * c.d);
      Tensor out = ctx().tensor({c.batch, n, c.d});
      layer.selfAttend(ctx(), ctx().tensor({c.batch, n, c.d}, chunk), cache, out, {.causal = true});
      const auto r = out.download();
      for (int64_t b = 0; b < c.batch; ++b)
        std::copy_n(r.begin() + b * n * c.d, n * c.d, got.begin() + (b * c.len + t) * c.d);
    }
    EXPECT_EQ(cache.length(), c.len);
    EXPECT_TRUE(allClose(got, expected, kAtol, kRtol));
  }
}

TEST_F(VkattnTest, StackedWeightsBadInput) {
  const LayerCase c = causal(2, true);
  const HostWeights w = makeWeights(c, 79);
  const int64_t dh = c.d / c.heads, qw = c.heads * dh, kvw = c.kvHeads * dh;
  const AttentionLayerConfig config{.modelDim = c.d, .heads = c.heads, .kvHeads = c.kvHeads};
  const auto layerWith = [&](AttentionLayerWeights weights) { MultiHeadAttention(ctx(), config, std::move(weights)); };
  EXPECT_EQ(invalidArgumentOf([&] {
              layerWith({.o = ctx().tensor({c.d, qw}), .qkv = ctx().tensor({qw + kvw, c.d})});
            }),
            "qkv");
  EXPECT_EQ(
      invalidArgumentOf([&] {
        layerWith(
            {.q = ctx().tensor({qw, c.d}), .o = ctx().tensor({c.d, qw}), .qkv = ctx().tensor({qw + 2 * kvw, c.d})});
      }),
      "q");
  EXPECT_EQ(invalidArgumentOf([&] {
              layerWith({.q = ctx().tensor({qw, c.d}, w.q),
                         .k = ctx().tensor({kvw, c.d}, w.k),
                         .v = ctx().tensor({kvw, c.d}, w.v),
                         .o = ctx().tensor({c.d, qw}),
                         .qkvBias = ctx().tensor({qw + 2 * kvw})});
            }),
            "qkvBias");
}

TEST_F(VkattnTest, ResidualIsAdded) {
  auto [c, w, layer, x, tx] = layerWithInput(ctx(), gqa(3), 5, 31);
  Tensor out = layer.forward(ctx(), tx, tx, {.residual = tx.view()});
  std::vector<double> expected = attentionLayerRef(c, w, x, x, nullptr);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] += x[i];
  EXPECT_TRUE(allClose(out.download(), expected, kAtol, kRtol));
}

TEST_F(VkattnTest, LayerBadInput) {
  LayerCase c = gqa(2);
  const HostWeights w = makeWeights(c, 9);
  const auto expectArgument = [](const std::string& name, auto&& call) {
    try {
      call();
      ADD_FAILURE() << "no error for " << name;
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(e.argument(), name) << e.what();
    }
  };
  expectArgument("kvHeads", [&] {
    AttentionLayerConfig bad{.modelDim = 96, .heads = 6, .kvHeads = 4, .headDim = 0, .rope = {}};
    MultiHeadAttention(ctx(), bad, {});
  });
  expectArgument("k", [&] {
    LayerCase wrong = c;
    wrong.kvHeads = 3;  // weights made for 3 kv heads, layer declared with 2
    const HostWeights w3 = makeWeights(wrong, 9);
    AttentionLayerConfig config{.modelDim = 96, .heads = 6, .kvHeads = 2, .headDim = 0, .rope = {}};
    AttentionLayerWeights weights{ctx().tensor({96, 96}, w3.q), ctx().tensor({48, 96}, w3.k),
                                  ctx().tensor({48, 96}, w3.v), ctx().tensor({96, 96}, w3.o)};
    MultiHeadAttention(ctx(), config, std::move(weights));
  });
  MultiHeadAttention layer = makeLayer(ctx(), c, w);
  expectArgument("x", [&] {
    Tensor x = ctx().tensor({4, 95}, randomValues(4 * 95, 1));
    Tensor source = ctx().tensor({4, 96}, randomValues(4 * 96, 2));
    layer.forward(ctx(), x, source);
  });
  expectArgument("source", [&] {
    KeyValueCache cache = layer.makeCache(ctx(), 1, 3);
    Tensor x = ctx().tensor({4, 96}, randomValues(4 * 96, 1));
    layer.append(ctx(), x, cache);  // 4 positions into a cache of 3
  });
  expectArgument("weightHeads", [&] {
    Tensor x = ctx().tensor({4, 96}, randomValues(4 * 96, 1));
    Tensor probs;
    layer.forward(ctx(), x, x, {.weights = &probs, .weightHeads = {6}});
  });
  expectArgument("weightHeads", [&] {
    Tensor x = ctx().tensor({4, 96}, randomValues(4 * 96, 1));
    Tensor probs;
    layer.forward(ctx(), x, x, {.weights = &probs, .weightHeads = {1, 1}});
  });
  expectArgument("cache", [&] {
    KeyValueCache cache = layer.makeCache(ctx(), 1, 3);
    Tensor x = ctx().tensor({1, 96}, randomValues(96, 1));
    Tensor out = ctx().tensor({1, 96});
    layer.attend(ctx(), x, cache, out);  // nothing appended yet
  });
}

}  // namespace
}  // namespace vkattn::test
