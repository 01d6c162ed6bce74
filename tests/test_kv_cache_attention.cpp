// kvCacheAttention (flash-attn's flash_attn_with_kvcache in C++) against the double reference run
// on each sequence's own keys, read from host copies of the caches: dense caches, cache rows
// chosen per sequence, paged caches, left padding with per-sequence ALiBi, new rows appended
// (checked in the caches too) and stored as bf16; which argument each bad call names; and
// rotateByTables against the rotation written out.
#include <cmath>
#include <string>

#include "support/compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/kv_cache_attention.hpp"
#include "vkattn/reference/attention_reference.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
namespace {

using reference::AttentionProblem;

// A batch against caches [N, S, Hkv, D], with host copies to build the reference from.
struct Case {
  int64_t batch = 3, lq = 2, hq = 4, hkv = 2, d = 32, dv = 32, cacheRows = 4, slots = 24, added = 0;
  KvCacheLayout layout;
  std::vector<int64_t> lengths, leftPad;
  bool causal = true;
  std::optional<int64_t> windowLeft;
  std::vector<float> alibi;  // [B, Hq] when not empty
  DType cacheDtype = DType::F32;
};

struct Outcome {
  std::vector<float> out, lse, kCache, vCache;
};

// The values as a cache of `dtype` holds them (what the device decodes).
std::vector<float> stored(const std::vector<float>& values, DType dtype) {
  if (dtype == DType::F32) return values;
  return decodeValues(dtype, encodeValues(dtype, values), static_cast<int64_t>(values.size()));
}

class KvCacheAttention : public VkattnTest {
 protected:
  // Runs the case; compares out and lse with the reference on each sequence's keys.
  void check(const Case& c, uint64_t seed) {
    const auto n = [](std::initializer_list<int64_t> dims) {
      int64_t p = 1;
      for (int64_t v : dims) p *= v;
      return static_cast<std::size_t>(p);
    };
    const std::vector<float> q = reference::randomValues(n({c.batch, c.lq, c.hq, c.d}), seed);
    std::vector<float> k =
        stored(reference::randomValues(n({c.cacheRows, c.slots, c.hkv, c.d}), seed + 1), c.cacheDtype);
    std::vector<float> v =
        stored(reference::randomValues(n({c.cacheRows, c.slots, c.hkv, c.dv}), seed + 2), c.cacheDtype);
    const std::vector<float> newK =
        stored(reference::randomValues(n({c.batch, c.added, c.hkv, c.d}), seed + 3), c.cacheDtype);
    const std::vector<float> newV =
        stored(reference::randomValues(n({c.batch, c.added, c.hkv, c.dv}), seed + 4), c.cacheDtype);

    Tensor tq = Tensor::fromHost(ctx().device(), {c.batch, c.lq, c.hq, c.d}, q);
    Tensor tk = Tensor::fromHost(ctx().device(), {c.cacheRows, c.slots, c.hkv, c.d}, k, c.cacheDtype);
    Tensor tv = Tensor::fromHost(ctx().device(), {c.cacheRows, c.slots, c.hkv, c.dv}, v, c.cacheDtype);
    Tensor tout = ctx().tensor({c.batch, c.lq, c.hq, c.dv}), tlse = ctx().tensor({c.batch, c.hq, c.lq});
    std::optional<Tensor> tNewK, tNewV, tAlibi;
    KvCacheAttentionOptions o;
    o.layout = c.layout;
    o.lengths = c.lengths;
    o.leftPad = c.leftPad;
    o.attention.causal = c.causal;
    o.attention.windowLeft = c.windowLeft;
    o.attention.lse = tlse.view();
    if (!c.alibi.empty()) {
      tAlibi = Tensor::fromHost(ctx().device(), {c.batch, c.hq}, c.alibi);
      o.attention.alibiSlopes = tAlibi->view();
    }
    if (c.added > 0) {
      tNewK = Tensor::fromHost(ctx().device(), {c.batch, c.added, c.hkv, c.d}, newK, c.cacheDtype);
      tNewV = Tensor::fromHost(ctx().device(), {c.batch, c.added, c.hkv, c.dv}, newV, c.cacheDtype);
      o.newK = tNewK->view();
      o.newV = tNewV->view();
    }
    kvCacheAttention(ctx(), tq, tk, tv, tout, o);

    // The host caches as the call should leave them: the new rows in their slots.
    std::vector<int64_t> lengths = c.lengths;
    const int64_t capacity = c.layout.blockTable.empty() ? c.slots : c.layout.maxBlocks * c.slots;
    if (lengths.empty()) lengths.assign(static_cast<std::size_t>(c.batch), capacity);
    const auto kRow = static_cast<std::size_t>(c.hkv * c.d), vRow = static_cast<std::size_t>(c.hkv * c.dv);
    for (int64_t b = 0; b < c.batch; ++b)
      for (int64_t j = 0; j < c.added; ++j) {
        const auto slot = static_cast<std::size_t>(kvCacheSlot(c.layout, b, lengths[b] + j, c.slots));
        const auto row = static_cast<std::size_t>(b * c.added + j);
        std::copy_n(newK.begin() + row * kRow, kRow, k.begin() + slot * kRow);
        std::copy_n(newV.begin() + row * vRow, vRow, v.begin() + slot * vRow);
      }
    for (int64_t& len : lengths) len += c.added;
    EXPECT_EQ(tk.download(), k) << "the new keys in their slots, nothing else changed";
    EXPECT_EQ(tv.download(), v);

    const std::vector<float> out = tout.download(), lse = tlse.download();
    for (int64_t b = 0; b < c.batch; ++b) {
      SCOPED_TRACE("sequence " + std::to_string(b));
      const int64_t first = c.leftPad.empty() ? 0 : c.leftPad[b], keys = lengths[b] - first;
      // The reference's [1, H, L, D] inputs: this sequence's query rows and its keys.
      std::vector<float> qb, kb, vb;
      for (int64_t h = 0; h < c.hq; ++h)
        for (int64_t i = 0; i < c.lq; ++i)
          for (int64_t x = 0; x < c.d; ++x) qb.push_back(q[n({b, c.lq, c.hq, c.d}) + ((i * c.hq + h) * c.d + x)]);
      for (int64_t h = 0; h < c.hkv; ++h)
        for (int64_t p = first; p < lengths[b]; ++p) {
          const auto slot = static_cast<std::size_t>(kvCacheSlot(c.layout, b, p, c.slots));
          for (int64_t x = 0; x < c.d; ++x) kb.push_back(k[slot * kRow + static_cast<std::size_t>(h * c.d + x)]);
          for (int64_t x = 0; x < c.dv; ++x) vb.push_back(v[slot * vRow + static_cast<std::size_t>(h * c.dv + x)]);
        }
      AttentionProblem pr;
      pr.headsQ = static_cast<std::size_t>(c.hq);
      pr.headsKv = static_cast<std::size_t>(c.hkv);
      pr.lq = static_cast<std::size_t>(c.lq);
      pr.lk = static_cast<std::size_t>(keys);
      pr.dk = static_cast<std::size_t>(c.d);
      pr.dv = static_cast<std::size_t>(c.dv);
      pr.scale = 1.0 / std::sqrt(static_cast<double>(c.d));
      pr.causal = c.causal;
      pr.bottomRight = true;
      pr.windowLeft = c.windowLeft;
      std::vector<float> slopes;
      if (!c.alibi.empty()) {
        slopes.assign(c.alibi.begin() + b * c.hq, c.alibi.begin() + (b + 1) * c.hq);
        pr.alibiSlopes = &slopes;
      }
      const auto want = reference::attentionRef(pr, qb, kb, vb);
      std::vector<float> gotOut, gotLse;
      for (int64_t h = 0; h < c.hq; ++h)
        for (int64_t i = 0; i < c.lq; ++i) {
          for (int64_t x = 0; x < c.dv; ++x)
            gotOut.push_back(out[n({b, c.lq, c.hq, c.dv}) + ((i * c.hq + h) * c.dv + x)]);
          gotLse.push_back(lse[n({b, c.hq, c.lq}) + static_cast<std::size_t>(h * c.lq + i)]);
        }
      EXPECT_TRUE(allClose(gotOut, want.out, 2e-5, 2e-5));
      // A row with no visible key has lse -inf in both; the others compare as numbers.
      for (std::size_t r = 0; r < gotLse.size(); ++r)
        if (std::isinf(want.lse[r])) {
          EXPECT_EQ(gotLse[r], want.lse[r]) << "row " << r;
          gotLse[r] = 0.0f;
        }
      std::vector<double> finite = want.lse;
      for (double& x : finite) x = std::isinf(x) ? 0.0 : x;
      EXPECT_TRUE(allClose(gotLse, finite, 2e-5, 2e-5));
    }
  }
};

TEST_F(KvCacheAttention, DenseCachesOfTheirOwnLengthsTakeNewRows) {
  Case c;
  c.lengths = {5, 0, 17};
  c.added = 2;
  check(c, 11);
  c.added = 0;  // attending alone; full caches when no length is given
  c.lengths = {};
  c.causal = false;
  check(c, 12);
}

TEST_F(KvCacheAttention, CacheRowsChosenPerSequence) {
  Case c;
  c.layout.rows = {3, 0, 2};
  c.lengths = {9, 20, 1};
  c.added = 3;
  c.windowLeft = 4;
  check(c, 21);
}

TEST_F(KvCacheAttention, PagedCachesThroughTheirBlockTable) {
  Case c;
  c.cacheRows = 7;
  c.slots = 8;  // the block size
  c.layout.blockTable = {6, 2, 0, 1, 5, 3};
  c.layout.maxBlocks = 3;
  c.batch = 2;
  c.lengths = {10, 15};
  c.added = 4;  // sequence 0's new rows cross into its second block
  check(c, 31);
}

TEST_F(KvCacheAttention, LeftPaddingWithAlibiPerSequence) {
  Case c;
  c.lengths = {12, 6, 20};
  c.leftPad = {3, 6, 0};  // sequence 1 has no keys: zeros, lse -inf
  c.added = 1;
  for (int64_t i = 0; i < c.batch * c.hq; ++i) c.alibi.push_back(0.05f * static_cast<float>(i + 1));
  check(c, 41);
}

TEST_F(KvCacheAttention, NewRowsStoredAsBf16) {
  Case c;
  c.cacheDtype = DType::BF16;
  c.lengths = {4, 11, 0};
  c.added = 2;
  check(c, 51);
}

TEST_F(KvCacheAttention, NamesWhatItRefuses) {
  const Tensor q = ctx().tensor({2, 1, 4, 32}), k = ctx().tensor({2, 16, 2, 32}), v = ctx().tensor({2, 16, 2, 32});
  const Tensor out = ctx().tensor({2, 1, 4, 32}), rows = ctx().tensor({2, 3, 2, 32});
  const auto run = [&](KvCacheAttentionOptions o, const TensorView& output) {
    return invalidArgumentOf([&] { kvCacheAttention(ctx(), q, k, v, output, o); });
  };
  KvCacheAttentionOptions o;
  EXPECT_EQ(run(o, ctx().tensor({2, 1, 4, 16})), "out");
  o.lengths = {3};
  EXPECT_EQ(run(o, out), "lengths");
  o.lengths = {3, 17};
  EXPECT_EQ(run(o, out), "lengths");
  o.lengths = {3, 14};
  o.newK = rows.view();
  EXPECT_EQ(run(o, out), "newK") << "newV missing";
  o.newV = rows.view();
  EXPECT_EQ(run(o, out), "newK") << "14 + 3 keys overflow 16";
  o = {};
  o.layout.rows = {0, 2};
  EXPECT_EQ(run(o, out), "rows");
  o = {};
  o.layout.blockTable = {0, 1, 1};
  o.layout.maxBlocks = 2;
  EXPECT_EQ(run(o, out), "blockTable");
  o.layout.blockTable = {0, 1, 1, 0};
  o.leftPad = {0, 1};
  EXPECT_EQ(run(o, out), "leftPad");
  o = {};
  o.leftPad = {0, 17};
  EXPECT_EQ(run(o, out), "leftPad");
  o = {};
  const Tensor lengths = Tensor::fromHostInt(ctx().device(), {2}, std::vector<int32_t>{1, 2});
  o.attention.keyLengths = lengths.view();
  EXPECT_EQ(run(o, out), "attention");
}

TEST(RotaryTables, TurnThePairsOfEachPositionsRow) {
  const int64_t b = 2, l = 3, h = 2, d = 8, half = 3, rows = 6;
  const std::vector<float> x0 = reference::randomValues(static_cast<std::size_t>(b * l * h * d), 61);
  std::vector<float> cos, sin;
  for (int64_t p = 0; p < rows; ++p)
    for (int64_t i = 0; i < half; ++i) {
      cos.push_back(std::cos(0.3f * static_cast<float>(p * (i + 1))));
      sin.push_back(std::sin(0.3f * static_cast<float>(p * (i + 1))));
    }
  const RotaryTables tables{cos, sin, rows, half};
  const auto position = [](int64_t bi, int64_t li) { return 2 * bi + li; };
  for (bool interleaved : {false, true}) {
    std::vector<float> x = x0;
    rotateByTables(x, {b, l, h, d}, tables, interleaved, position);
    for (int64_t bi = 0; bi < b; ++bi)
      for (int64_t li = 0; li < l; ++li)
        for (int64_t hi = 0; hi < h; ++hi) {
          const std::size_t row = static_cast<std::size_t>(((bi * l + li) * h + hi) * d);
          const int64_t p = position(bi, li);
          std::vector<double> want(x0.begin() + row, x0.begin() + row + d);
          for (int64_t i = 0; i < half; ++i) {
            const std::size_t a = interleaved ? 2 * i : i, z = interleaved ? 2 * i + 1 : i + half;
            const double u = x0[row + a], w = x0[row + z], co = cos[p * half + i], si = sin[p * half + i];
            want[a] = u * co - w * si;
            want[z] = u * si + w * co;
          }
          EXPECT_TRUE(allClose(std::vector<float>(x.begin() + row, x.begin() + row + d), want, 1e-6, 1e-6));
        }
  }
  std::vector<float> x = x0;
  EXPECT_EQ(invalidArgumentOf([&] {
              rotateByTables(x, {b, l, h, d}, tables, false, [](int64_t, int64_t) { return 6; });
            }),
            "cos")
      << "position 6 of a 6-row table";
  EXPECT_EQ(invalidArgumentOf([&] { rotateByTables(x, {b, l, h, 4}, tables, false, position); }), "x");
}

}  // namespace
}  // namespace vkattn::test
