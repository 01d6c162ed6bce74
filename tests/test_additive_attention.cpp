// Additive (Bahdanau) attention against a double-precision reference written from seed 001's
// formula score(Q, K_i) = v^T tanh(W_q Q + W_k K_i), with every mask kind and bad input.
#include <cmath>
#include <limits>

#include "support/compare.hpp"
#include "support/reference.hpp"
#include "support/test_context.hpp"
#include "vkattn/additive_attention.hpp"
#include "vkattn/error.hpp"

namespace vkattn::test {
namespace {

constexpr double kAtol = 2e-5, kRtol = 1e-4;

struct Problem {
  int64_t B = 2, Lq = 5, Lk = 7, Dq = 6, Dk = 10, Dv = 3, A = 8;
  bool causal = false;
  std::vector<float> bias;  // [B, Lq, Lk] full, or empty
  std::vector<int32_t> keep;
  std::vector<int32_t> keyLengths;
};

// Returns out [B, Lq, Dv] and weights [B, Lq, Lk].
std::pair<std::vector<double>, std::vector<double>> reference(const Problem& p, const std::vector<float>& q,
                                                              const std::vector<float>& k, const std::vector<float>& val,
                                                              const std::vector<float>& wq, const std::vector<float>& wk,
                                                              const std::vector<float>& v) {
  std::vector<double> out(p.B * p.Lq * p.Dv, 0.0), weights(p.B * p.Lq * p.Lk, 0.0);
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t i = 0; i < p.Lq; ++i) {
      std::vector<double> s(p.Lk, -INFINITY);
      double m = -INFINITY;
      for (int64_t j = 0; j < p.Lk; ++j) {
        const int64_t at = (b * p.Lq + i) * p.Lk + j;
        if (p.causal && j > i) continue;
        if (!p.keyLengths.empty() && j >= p.keyLengths[b]) continue;
        if (!p.keep.empty() && p.keep[at] == 0) continue;
        double score = 0.0;
        for (int64_t a = 0; a < p.A; ++a) {
          double hq = 0.0, hk = 0.0;
          for (int64_t d = 0; d < p.Dq; ++d) hq += double(wq[a * p.Dq + d]) * q[(b * p.Lq + i) * p.Dq + d];
          for (int64_t d = 0; d < p.Dk; ++d) hk += double(wk[a * p.Dk + d]) * k[(b * p.Lk + j) * p.Dk + d];
          score += v[a] * std::tanh(hq + hk);
        }
        if (!p.bias.empty()) score += p.bias[at];
        s[j] = score;
        m = std::max(m, score);
      }
      if (m == -INFINITY) continue;
      double sum = 0.0;
      for (double x : s) sum += std::exp(x - m);
      for (int64_t j = 0; j < p.Lk; ++j) {
        const double w = std::exp(s[j] - m) / sum;
        weights[(b * p.Lq + i) * p.Lk + j] = w;
        for (int64_t d = 0; d < p.Dv; ++d) out[(b * p.Lq + i) * p.Dv + d] += w * val[(b * p.Lk + j) * p.Dv + d];
      }
    }
  return {out, weights};
}

class AdditiveAttention : public VkattnTest {
 protected:
  void run(const Problem& p, bool withMasksAsTensors = true) {
    auto q = randomValues(p.B * p.Lq * p.Dq, 1), k = randomValues(p.B * p.Lk * p.Dk, 2),
         val = randomValues(p.B * p.Lk * p.Dv, 3), wq = randomValues(p.A * p.Dq, 4, -0.7f, 0.7f),
         wk = randomValues(p.A * p.Dk, 5, -0.7f, 0.7f), v = randomValues(p.A, 6, -2.0f, 2.0f);
    Tensor tw = ctx().tensor({p.B, p.Lq, p.Lk});
    std::optional<Tensor> bias, keep, lengths;
    AdditiveAttentionOptions o{.causal = p.causal, .weights = tw.view()};
    if (withMasksAsTensors && !p.bias.empty()) {
      bias = ctx().tensor({p.B, p.Lq, p.Lk}, p.bias);
      o.bias = bias->view();
    }
    if (!p.keep.empty()) {
      keep = Tensor::fromHostInt(ctx().device(), {p.B, p.Lq, p.Lk}, p.keep);
      o.keepMask = keep->view();
    }
    if (!p.keyLengths.empty()) {
      lengths = Tensor::fromHostInt(ctx().device(), {p.B}, p.keyLengths);
      o.keyLengths = lengths->view();
    }
    Tensor out = additiveAttention(ctx(), ctx().tensor({p.B, p.Lq, p.Dq}, q), ctx().tensor({p.B, p.Lk, p.Dk}, k),
                                   ctx().tensor({p.B, p.Lk, p.Dv}, val), ctx().tensor({p.A, p.Dq}, wq),
                                   ctx().tensor({p.A, p.Dk}, wk), ctx().tensor({p.A}, v), o);
    auto [refOut, refWeights] = reference(p, q, k, val, wq, wk, v);
    EXPECT_TRUE(allClose(out.download(), refOut, kAtol, kRtol));
    EXPECT_TRUE(allClose(tw.download(), refWeights, 1e-5, 1e-4));
  }
};

TEST_F(AdditiveAttention, QueryAndKeySizesDiffer) { run(Problem{}); }

TEST_F(AdditiveAttention, OddAndLargerShapes) {
  run(Problem{.B = 1, .Lq = 1, .Lk = 1, .Dq = 1, .Dk = 3, .Dv = 1, .A = 1});
  run(Problem{.B = 3, .Lq = 33, .Lk = 113, .Dq = 40, .Dk = 24, .Dv = 17, .A = 64});
}

TEST_F(AdditiveAttention, EveryMaskKind) {
  Problem p{.causal = true};
  p.bias = randomValues(p.B * p.Lq * p.Lk, 7, -1.0f, 1.0f);
  p.bias[3] = -std::numeric_limits<float>::infinity();
  p.keep.assign(p.B * p.Lq * p.Lk, 1);
  p.keep[p.Lk + 0] = 0;
  p.keyLengths = {4, 0};  // the second batch is all padding: zeros out
  run(p);
}

TEST_F(AdditiveAttention, BroadcastBias) {
  Problem p;
  auto row = randomValues(p.Lk, 8, -2.0f, 2.0f);
  Tensor bias = ctx().tensor({1, 1, p.Lk}, row);
  auto q = randomValues(p.B * p.Lq * p.Dq, 1), k = randomValues(p.B * p.Lk * p.Dk, 2),
       val = randomValues(p.B * p.Lk * p.Dv, 3), wq = randomValues(p.A * p.Dq, 4), wk = randomValues(p.A * p.Dk, 5),
       v = randomValues(p.A, 6);
  Tensor out = additiveAttention(ctx(), ctx().tensor({p.B, p.Lq, p.Dq}, q), ctx().tensor({p.B, p.Lk, p.Dk}, k),
                                 ctx().tensor({p.B, p.Lk, p.Dv}, val), ctx().tensor({p.A, p.Dq}, wq),
                                 ctx().tensor({p.A, p.Dk}, wk), ctx().tensor({p.A}, v), {.bias = bias.view()});
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t i = 0; i < p.Lq; ++i) p.bias.insert(p.bias.end(), row.begin(), row.end());
  EXPECT_TRUE(allClose(out.download(), reference(p, q, k, val, wq, wk, v).first, kAtol, kRtol));
}

TEST_F(AdditiveAttention, BadInputNamesTheArgument) {
  // Inputs hold defined values: fresh device memory is uninitialised and could hold a NaN.
  auto filled = [&](Shape shape) { return ctx().tensor(shape, randomValues(elementCount(shape), 9)); };
  Tensor q = filled({2, 5, 6}), k = filled({2, 7, 10}), val = filled({2, 7, 3});
  Tensor wq = filled({8, 6}), wk = filled({8, 10}), v = filled({8});
  auto expectArgument = [](auto&& f, const std::string& name) {
    try {
      f();
      ADD_FAILURE() << "no exception for " << name;
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(e.argument(), name) << e.what();
    }
  };
  expectArgument([&] { additiveAttention(ctx(), q, k, val, ctx().tensor({8, 5}), wk, v); }, "w_q");
  expectArgument([&] { additiveAttention(ctx(), q, k, val, wq, ctx().tensor({8, 9}), v); }, "w_k");
  expectArgument([&] { additiveAttention(ctx(), q, ctx().tensor({3, 7, 10}), val, wq, wk, v); }, "key");
  expectArgument([&] { additiveAttention(ctx(), q, k, ctx().tensor({2, 6, 3}), wq, wk, v); }, "value");
  expectArgument([&] { additiveAttention(ctx(), q, k, val, wq, wk, v, {.bias = ctx().tensor({2, 5, 6}).view()}); },
                 "bias");
  Tensor nanQ = ctx().tensor({2, 5, 6}, std::vector<float>(60, NAN));
  expectArgument([&] { additiveAttention(ctx(), nanQ, k, val, wq, wk, v); }, "query");
  Tensor nanV = ctx().tensor({8}, std::vector<float>(8, NAN));
  expectArgument([&] { additiveAttention(ctx(), q, k, val, wq, wk, nanV); }, "v");
}

}  // namespace
}  // namespace vkattn::test
