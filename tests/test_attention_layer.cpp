// The MultiHeadAttention layer (projections + fused attention + output projection) against a
// double-precision reference written from the documents' MultiHeadAttention /
// GroupedQueryAttention classes: MHA, GQA and MQA, self and cross input, causal masking,
// RoPE, incremental decoding through the key/value cache, and the attention probabilities.
#include <cmath>

#include "support/compare.hpp"
#include "support/reference.hpp"
#include "support/test_context.hpp"
#include "vkattn/attention_layer.hpp"
#include "vkattn/error.hpp"

namespace vkattn::test {
namespace {

// f32 reference path: worst observed ~1e-6; projections sum 96 products per output.
constexpr double kAtol = 2e-5, kRtol = 1e-4;

struct LayerCase {
  int64_t d = 96, heads = 6, kvHeads = 6, batch = 2, len = 7, sourceLen = 7;
  bool causal = false, rope = false, cross = false;
};

struct HostWeights {
  std::vector<float> q, k, v, o, qb, kb, vb, ob;
};

HostWeights makeWeights(const LayerCase& c, uint64_t seed) {
  const int64_t dh = c.d / c.heads, qw = c.heads * dh, kvw = c.kvHeads * dh;
  const float s = 1.0f / std::sqrt(static_cast<float>(c.d));
  return {randomValues(qw * c.d, seed, -s, s),       randomValues(kvw * c.d, seed + 1, -s, s),
          randomValues(kvw * c.d, seed + 2, -s, s),  randomValues(c.d * qw, seed + 3, -s, s),
          randomValues(qw, seed + 4, -0.1f, 0.1f),   randomValues(kvw, seed + 5, -0.1f, 0.1f),
          randomValues(kvw, seed + 6, -0.1f, 0.1f),  randomValues(c.d, seed + 7, -0.1f, 0.1f)};
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

// y[r, :] = x[r, :] W^T + b for rows of width `in`.
std::vector<double> project(const std::vector<float>& x, int64_t rows, int64_t in, const std::vector<float>& w,
                            const std::vector<float>& b, int64_t out) {
  std::vector<double> y(static_cast<std::size_t>(rows * out));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t n = 0; n < out; ++n) {
      double acc = b[n];
      for (int64_t k = 0; k < in; ++k) acc += static_cast<double>(x[r * in + k]) * w[n * in + k];
      y[r * out + n] = acc;
    }
  return y;
}

// rotate_half RoPE of one head vector at `pos`, theta 10000.
void ropeInPlace(double* x, int64_t dh, int64_t pos) {
  for (int64_t i = 0; i < dh / 2; ++i) {
    const double angle = static_cast<double>(pos) * std::pow(10000.0, -2.0 * static_cast<double>(i) / dh);
    const double a = x[i], b = x[i + dh / 2];
    x[i] = a * std::cos(angle) - b * std::sin(angle);
    x[i + dh / 2] = b * std::cos(angle) + a * std::sin(angle);
  }
}

// The layer's output [B, L, d]; probabilities [B, H, L, S] into probs.
std::vector<double> layerRef(const LayerCase& c, const HostWeights& w, const std::vector<float>& x,
                             const std::vector<float>& src, std::vector<double>* probs) {
  const int64_t dh = c.d / c.heads, qw = c.heads * dh, kvw = c.kvHeads * dh, B = c.batch, L = c.len,
                S = c.sourceLen;
  std::vector<double> q = project(x, B * L, c.d, w.q, w.qb, qw);
  std::vector<double> k = project(src, B * S, c.d, w.k, w.kb, kvw);
  std::vector<double> v = project(src, B * S, c.d, w.v, w.vb, kvw);
  if (c.rope) {
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t l = 0; l < L; ++l)  // queries are the newest positions
        for (int64_t h = 0; h < c.heads; ++h) ropeInPlace(&q[(b * L + l) * qw + h * dh], dh, S - L + l);
      for (int64_t s = 0; s < S; ++s)
        for (int64_t h = 0; h < c.kvHeads; ++h) ropeInPlace(&k[(b * S + s) * kvw + h * dh], dh, s);
    }
  }
  std::vector<float> context(static_cast<std::size_t>(B * L * qw));
  if (probs) probs->assign(static_cast<std::size_t>(B * c.heads * L * S), 0.0);
  const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < c.heads; ++h) {
      const int64_t g = h / (c.heads / c.kvHeads);
      for (int64_t i = 0; i < L; ++i) {
        std::vector<double> s(static_cast<std::size_t>(S), -INFINITY);
        double max = -INFINITY;
        for (int64_t j = 0; j < S; ++j) {
          if (c.causal && j > i + (S - L)) continue;
          double dot = 0;
          for (int64_t e = 0; e < dh; ++e) dot += q[(b * L + i) * qw + h * dh + e] * k[(b * S + j) * kvw + g * dh + e];
          s[j] = dot * scale;
          max = std::max(max, s[j]);
        }
        double sum = 0;
        for (double& e : s) sum += (e = std::exp(e - max));
        for (int64_t e = 0; e < dh; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < S; ++j) acc += s[j] / sum * v[(b * S + j) * kvw + g * dh + e];
          context[(b * L + i) * qw + h * dh + e] = static_cast<float>(acc);
        }
        if (probs)
          for (int64_t j = 0; j < S; ++j) (*probs)[((b * c.heads + h) * L + i) * S + j] = s[j] / sum;
      }
    }
  // The output projection of a float context: the rounding this adds is far below the tolerance.
  return project(context, B * L, qw, w.o, w.ob, c.d);
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
  const std::vector<double> expected = layerRef(c, w, x, src, &expectedProbs);
  EXPECT_TRUE(allClose(out.download(), expected, kAtol, kRtol));
  EXPECT_TRUE(allClose(probs.download(), expectedProbs, 1e-5, 1e-4));
}

LayerCase mha() { return {}; }
LayerCase gqa(int64_t kv) { LayerCase c; c.kvHeads = kv; return c; }
LayerCase cross(int64_t kv) { LayerCase c; c.kvHeads = kv; c.cross = true; c.len = 5; c.sourceLen = 11; return c; }
LayerCase causal(int64_t kv, bool rope) { LayerCase c; c.kvHeads = kv; c.causal = true; c.rope = rope; return c; }

INSTANTIATE_TEST_SUITE_P(Variants, AttentionLayer,
                         ::testing::Values(mha(), gqa(3), gqa(2), gqa(1), cross(6), cross(2), causal(6, false),
                                           causal(2, true), gqa(1)));

TEST_F(VkattnTest, IncrementalDecodingMatchesFullPass) {
  // One token at a time through the cache must give the rows of one causal pass (RoPE, GQA).
  LayerCase c = causal(2, true);
  c.batch = 1;
  c.len = c.sourceLen = 9;
  const HostWeights w = makeWeights(c, 77);
  MultiHeadAttention layer = makeLayer(ctx(), c, w);
  const auto x = randomValues(c.len * c.d, 21);
  const std::vector<double> expected = layerRef(c, w, x, x, nullptr);
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

TEST_F(VkattnTest, ResidualIsAdded) {
  LayerCase c = gqa(3);
  const HostWeights w = makeWeights(c, 5);
  MultiHeadAttention layer = makeLayer(ctx(), c, w);
  const auto x = randomValues(c.batch * c.len * c.d, 31);
  Tensor tx = ctx().tensor({c.batch, c.len, c.d}, x);
  Tensor out = layer.forward(ctx(), tx, tx, {.residual = tx.view()});
  std::vector<double> expected = layerRef(c, w, x, x, nullptr);
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
  expectArgument("cache", [&] {
    KeyValueCache cache = layer.makeCache(ctx(), 1, 3);
    Tensor x = ctx().tensor({1, 96}, randomValues(96, 1));
    Tensor out = ctx().tensor({1, 96});
    layer.attend(ctx(), x, cache, out);  // nothing appended yet
  });
}

}  // namespace
}  // namespace vkattn::test
