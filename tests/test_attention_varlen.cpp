// Variable-length packed batches (cuSeqlensQ / cuSeqlensK) in one rows-kernel dispatch, against
// the double reference run on each sequence alone: empty sequences (no query rows, no keys),
// prompts and decode (GQA packing), causal and windows from either corner, sinks, ALiBi per head
// and per sequence, softcap, split-K, f32 and f16, lse; q, k, v, out in flash-attn's packed
// [total, H, D] layout; and the refusals.
#include <cmath>
#include <string>

#include "support/attention_check.hpp"
#include "support/compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

// Rows first .. first + count - 1 of a packed [total, H, D] array as a [1, H, count, D] array.
std::vector<float> sequenceRows(const std::vector<float>& packed, int64_t heads, int64_t dim, int64_t first,
                                int64_t count) {
  std::vector<float> out;
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < count; ++i)
      for (int64_t d = 0; d < dim; ++d) out.push_back(packed[((first + i) * heads + h) * dim + d]);
  return out;
}

// A packed [total, H, D] tensor as the [1, H, total, D] view attention takes.
TensorView packedView(const Tensor& t) {
  return t.view().reshaped({1, t.shape()[0], t.shape()[1], t.shape()[2]}).permuted({0, 2, 1, 3});
}

struct VarlenCase {
  std::vector<int32_t> lq, lk;
  int64_t hq = 8, hkv = 2, dk = 32, dv = 32;
  bool causal = true;
  MaskAlignment alignment = MaskAlignment::BottomRight;
  std::optional<int64_t> windowLeft;
  bool sinks = true, alibi = true, alibiPerSequence = false;
  float softcap = 0.0f;
  uint32_t keySplits = 0;
  DType dtype = DType::F32;
};

void checkVarlen(Context& ctx, const VarlenCase& c, uint64_t seed) {
  const auto batch = static_cast<int64_t>(c.lq.size());
  std::vector<int32_t> cq = {0}, ck = {0};
  for (int64_t b = 0; b < batch; ++b) {
    cq.push_back(cq.back() + c.lq[b]);
    ck.push_back(ck.back() + c.lk[b]);
  }
  const int64_t totalQ = cq.back(), totalK = ck.back();
  auto values = [&](int64_t n, uint64_t s) {
    auto x = randomValues(static_cast<std::size_t>(n), s);
    return c.dtype == DType::F16 ? roundToHalf(x) : x;
  };
  const auto q = values(totalQ * c.hq * c.dk, seed), k = values(totalK * c.hkv * c.dk, seed + 1),
             v = values(totalK * c.hkv * c.dv, seed + 2);
  Tensor tq = ctx.tensor({totalQ, c.hq, c.dk}, q, c.dtype), tk = ctx.tensor({totalK, c.hkv, c.dk}, k, c.dtype),
         tv = ctx.tensor({totalK, c.hkv, c.dv}, v, c.dtype), tout = ctx.tensor({totalQ, c.hq, c.dv}, c.dtype),
         tlse = ctx.tensor({1, c.hq, totalQ});
  AttentionOptions o;
  o.scale = 0.3f;
  o.causal = c.causal;
  o.alignment = c.alignment;
  o.windowLeft = c.windowLeft;
  o.softcap = c.softcap;
  o.keySplits = c.keySplits;
  o.cuSeqlensQ = cq;
  o.cuSeqlensK = ck;
  o.lse = tlse.view();
  const auto sinks = randomValues(static_cast<std::size_t>(c.hq), seed + 3, -1.0f, 2.0f);
  std::vector<float> slopes;
  for (int64_t x = 0; x < (c.alibiPerSequence ? batch : 1) * c.hq; ++x)
    slopes.push_back(std::exp2(-8.0f * static_cast<float>(x % c.hq + 1) / static_cast<float>(c.hq)) *
                     (1.0f + 0.5f * static_cast<float>(x / c.hq)));
  Tensor tSinks = ctx.tensor({c.hq}, sinks);
  Tensor tSlopes = c.alibiPerSequence ? ctx.tensor({batch, c.hq}, slopes) : ctx.tensor({c.hq}, slopes);
  if (c.sinks) o.sinks = tSinks.view();
  if (c.alibi) o.alibiSlopes = tSlopes.view();
  attention(ctx, packedView(tq), packedView(tk), packedView(tv), packedView(tout), o);
  const auto got = tout.download(), gotLse = tlse.download();

  const reference::Tolerance tol = toleranceFor(Checked::Attention, c.dtype);
  const reference::Tolerance lseTol = toleranceFor(Checked::AttentionLse, DType::F32);
  for (int64_t b = 0; b < batch; ++b) {
    SCOPED_TRACE("sequence " + std::to_string(b) + ": " + std::to_string(c.lq[b]) + " rows, " +
                 std::to_string(c.lk[b]) + " keys");
    if (c.lq[b] == 0) continue;
    std::vector<double> want(static_cast<std::size_t>(c.lq[b] * c.hq * c.dv), 0.0), wantLse;
    if (c.lk[b] == 0) {  // no key: zeros, lse = the sink (or -inf)
      for (int64_t h = 0; h < c.hq; ++h)
        wantLse.insert(wantLse.end(), static_cast<std::size_t>(c.lq[b]), c.sinks ? sinks[h] : -INFINITY);
    } else {
      AttentionProblem pr =
          problem(1, static_cast<std::size_t>(c.hq), static_cast<std::size_t>(c.hkv), static_cast<std::size_t>(c.lq[b]),
                  static_cast<std::size_t>(c.lk[b]), static_cast<std::size_t>(c.dk), static_cast<std::size_t>(c.dv));
      pr.scale = 0.3;
      pr.causal = c.causal;
      pr.bottomRight = c.alignment != MaskAlignment::TopLeft;
      pr.windowLeft = c.windowLeft;
      pr.softcap = c.softcap;
      std::vector<float> seqSlopes(slopes.begin() + (c.alibiPerSequence ? b * c.hq : 0),
                                   slopes.begin() + (c.alibiPerSequence ? b * c.hq : 0) + c.hq);
      if (c.sinks) pr.sinks = &sinks;
      if (c.alibi) pr.alibiSlopes = &seqSlopes;
      const AttentionResult ref =
          attentionRef(pr, sequenceRows(q, c.hq, c.dk, cq[b], c.lq[b]), sequenceRows(k, c.hkv, c.dk, ck[b], c.lk[b]),
                       sequenceRows(v, c.hkv, c.dv, ck[b], c.lk[b]));
      for (int64_t h = 0; h < c.hq; ++h)  // [1, H, lq, Dv] -> packed [lq, H, Dv]
        for (int64_t i = 0; i < c.lq[b]; ++i)
          for (int64_t d = 0; d < c.dv; ++d)
            want[static_cast<std::size_t>((i * c.hq + h) * c.dv + d)] =
                ref.out[static_cast<std::size_t>((h * c.lq[b] + i) * c.dv + d)];
      wantLse = ref.lse;
    }
    const auto first = got.begin() + cq[b] * c.hq * c.dv;
    EXPECT_TRUE(
        allClose(std::vector<float>(first, first + static_cast<int64_t>(want.size())), want, tol.atol, tol.rtol));
    std::vector<float> seqLse;
    for (int64_t h = 0; h < c.hq; ++h)
      for (int64_t i = 0; i < c.lq[b]; ++i) seqLse.push_back(gotLse[static_cast<std::size_t>(h * totalQ + cq[b] + i)]);
    EXPECT_TRUE(allClose(finiteLse(seqLse), finiteLse(wantLse), lseTol.atol, lseTol.rtol)) << "lse";
  }
}

TEST_F(VkattnTest, AttentionVarlenPrompts) {
  // Sequences with no query rows and with no keys among prompts of different lengths.
  VarlenCase c{.lq = {5, 0, 3, 9, 2}, .lk = {7, 3, 0, 20, 30}};
  checkVarlen(ctx(), c, 800);
  c.alignment = MaskAlignment::TopLeft;
  c.lq = {5, 0, 3, 9, 2};
  c.lk = {5, 3, 4, 20, 2};
  checkVarlen(ctx(), c, 801);
  // Windows, softcap and ALiBi per sequence; not causal; split keys.
  VarlenCase w{.lq = {4, 11, 1},
               .lk = {40, 11, 70},
               .causal = false,
               .windowLeft = 6,
               .alibiPerSequence = true,
               .softcap = 20.0f,
               .keySplits = 3};
  checkVarlen(ctx(), w, 802);
  // Dk != Dv, f16, no sinks or ALiBi.
  checkVarlen(ctx(),
              {.lq = {6, 2},
               .lk = {9, 13},
               .hq = 4,
               .hkv = 4,
               .dk = 24,
               .dv = 40,
               .sinks = false,
               .alibi = false,
               .dtype = DType::F16},
              803);
}

TEST_F(VkattnTest, AttentionVarlenDecode) {
  // One or two new rows per sequence over caches of different lengths (the decode mode packs the
  // query heads of a KV head; rows past a sequence's own stand in, unwritten), split-K too.
  checkVarlen(ctx(), {.lq = {1, 1, 1, 1}, .lk = {40, 1, 0, 300}, .hq = 16, .hkv = 2}, 810);
  checkVarlen(ctx(), {.lq = {2, 1, 0, 2}, .lk = {33, 5, 9, 64}, .hq = 8, .hkv = 2, .keySplits = 4}, 811);
}

TEST_F(VkattnTest, AttentionVarlenRefusals) {
  Context& c = ctx();
  Tensor q = c.tensor({1, 2, 6, 16}, randomValues(192, 820)), k = c.tensor({1, 2, 9, 16}, randomValues(288, 821));
  const AttentionOptions ok{.cuSeqlensQ = std::vector<int32_t>{0, 2, 6}, .cuSeqlensK = std::vector<int32_t>{0, 4, 9}};
  EXPECT_EQ(attention(c, q, k, k, ok).shape(), (Shape{1, 2, 6, 16}));
  auto with = [&](auto change) {
    AttentionOptions o = ok;
    change(o);
    return invalidArgumentOf([&] { attention(c, q, k, k, o); });
  };
  EXPECT_EQ(with([](AttentionOptions& o) { o.cuSeqlensK.reset(); }), "cuSeqlensK");
  EXPECT_EQ(with([](AttentionOptions& o) {
              o.cuSeqlensQ = std::vector<int32_t>{0, 2, 5};
            }),
            "cuSeqlensQ");  // not q's 6
  EXPECT_EQ(with([](AttentionOptions& o) { o.cuSeqlensQ = std::vector<int32_t>{0, 4, 2, 6}; }), "cuSeqlensQ");
  EXPECT_EQ(with([](AttentionOptions& o) { o.cuSeqlensK = std::vector<int32_t>{1, 4, 9}; }), "cuSeqlensK");
  EXPECT_EQ(with([](AttentionOptions& o) { o.cuSeqlensK = std::vector<int32_t>{0, 9}; }), "cuSeqlensK");
  Tensor lens = Tensor::fromHostInt(c.device(), {2}, std::vector<int32_t>{4, 5});
  EXPECT_EQ(with([&](AttentionOptions& o) { o.keyLengths = lens.view(); }), "keyLengths");
  Tensor q2 = c.tensor({2, 2, 3, 16}), k2 = c.tensor({2, 2, 9, 16});  // not a packed [1, H, total, D] batch
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q2, k2, k2, ok); }), "q");
  for (AttentionVariant variant : {AttentionVariant::Tiled, AttentionVariant::CoopmatEmulated}) {
    AttentionOptions o = ok;
    o.variant = variant;
    try {
      attention(c, q, k, k, o);
      ADD_FAILURE() << toString(variant) << " took a packed batch";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("cuSeqlensQ"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(attentionNaive(c, q, k, k, ok), Unsupported);
}

}  // namespace
}  // namespace vkattn::test
