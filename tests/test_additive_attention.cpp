// Additive (Bahdanau) attention against a double-precision reference written from seed 001's
// formula score(Q, K_i) = v^T tanh(W_q Q + W_k K_i), with every mask kind and bad input.
#include <cmath>
#include <limits>

#include "support/compare.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/additive_attention.hpp"
#include "vkattn/reference/additive_attention_reference.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

const Tolerance kWeights = toleranceFor(Checked::AttentionWeights, DType::F32);

const double kAtol = toleranceFor(Checked::AdditiveAttention, DType::F32).atol,
             kRtol = toleranceFor(Checked::AdditiveAttention, DType::F32).rtol;

using Problem = AdditiveProblem;

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
    auto [refOut, refWeights] = additiveAttentionRef(p, q, k, val, wq, wk, v);
    EXPECT_TRUE(allClose(out.download(), refOut, kAtol, kRtol));
    EXPECT_TRUE(allClose(tw.download(), refWeights, kWeights.atol, kWeights.rtol));
  }
};

TEST_F(AdditiveAttention, QueryAndKeySizesDiffer) {
  run(Problem{});
}

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
  EXPECT_TRUE(allClose(out.download(), additiveAttentionRef(p, q, k, val, wq, wk, v).first, kAtol, kRtol));
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
  expectArgument(
      [&] {
        additiveAttention(ctx(), q, k, val, wq, wk, v, {.bias = ctx().tensor({2, 5, 6}).view()});
      },
      "bias");
  Tensor nanQ = ctx().tensor({2, 5, 6}, std::vector<float>(60, NAN));
  expectArgument([&] { additiveAttention(ctx(), nanQ, k, val, wq, wk, v); }, "query");
  Tensor nanV = ctx().tensor({8}, std::vector<float>(8, NAN));
  expectArgument([&] { additiveAttention(ctx(), q, k, val, wq, wk, nanV); }, "v");
}

}  // namespace
}  // namespace vkattn::test
