// RoPE conformance against the double reference: both pair layouts, partial rotary dims, GQA
// head counts, position tensors and offsets, large positions, strided [B, L, H, D] views, f16.
#include <limits>
#include <optional>
#include <vector>

#include "support/compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/stacked_rows.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/half.hpp"
#include "vkattn/ops/rope.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

const double kAtolF32 = toleranceFor(Checked::Rope, DType::F32).atol;
const double kAtolF16 = toleranceFor(Checked::Rope, DType::F16).atol;

struct RopeCase {
  int64_t B, H, L, D, rotaryDim;
  bool interleaved;
};

class Rope : public VkattnTest, public ::testing::WithParamInterface<RopeCase> {};

TEST_P(Rope, OffsetPositionsF32) {
  const RopeCase c = GetParam();
  auto x = randomValues(c.B * c.H * c.L * c.D, 17 + c.D + c.L);
  Tensor tx = ctx().tensor({c.B, c.H, c.L, c.D}, x);
  Tensor ty = rope(ctx(), tx, {.interleaved = c.interleaved, .rotaryDim = c.rotaryDim, .positionOffset = 5});
  auto ref = ropeRef(x, c.B, c.H, c.L, c.D, c.rotaryDim ? c.rotaryDim : c.D, c.interleaved, 10000.0,
                     offsetPositions(c.B, c.L, 5));
  EXPECT_TRUE(allClose(ty.download(), ref, kAtolF32, 0.0));
}

TEST_P(Rope, OffsetPositionsF16) {
  const RopeCase c = GetParam();
  auto x = roundToHalf(randomValues(c.B * c.H * c.L * c.D, 23 + c.D));
  Tensor tx = ctx().tensor({c.B, c.H, c.L, c.D}, x, DType::F16);
  Tensor ty = rope(ctx(), tx, {.interleaved = c.interleaved, .rotaryDim = c.rotaryDim});
  auto ref = ropeRef(x, c.B, c.H, c.L, c.D, c.rotaryDim ? c.rotaryDim : c.D, c.interleaved, 10000.0,
                     offsetPositions(c.B, c.L, 0));
  EXPECT_TRUE(allClose(ty.download(), ref, kAtolF16, 0.0));
}

INSTANTIATE_TEST_SUITE_P(Shapes, Rope,
                         ::testing::Values(RopeCase{1, 1, 1, 2, 0, false}, RopeCase{2, 3, 7, 64, 0, false},
                                           RopeCase{2, 3, 7, 64, 0, true}, RopeCase{1, 5, 33, 80, 32, false},
                                           RopeCase{1, 5, 33, 80, 32, true}, RopeCase{3, 2, 113, 128, 0, true},
                                           RopeCase{1, 1, 1000, 16, 8, false}));

TEST_F(VkattnTest, RopeLargePositionsStayAccurate) {
  // The phase is reduced exactly in fixed point, so position 1e6 is as accurate as position 1.
  const int64_t B = 2, H = 2, L = 5, D = 64;
  auto x = randomValues(B * H * L * D, 31);
  std::vector<int32_t> pos = {0, 1, 4095, 65537, 1000000, 999999, 123456, 7, 300000, 1 << 24};
  Tensor tx = ctx().tensor({B, H, L, D}, x);
  Tensor tp = Tensor::fromHostInt(ctx().device(), {B, L}, pos);
  Tensor ty = rope(ctx(), tx, {.theta = 500000.0, .positions = tp.view()});
  std::vector<int64_t> pos64(pos.begin(), pos.end());
  EXPECT_TRUE(allClose(ty.download(), ropeRef(x, B, H, L, D, D, false, 500000.0, pos64), kAtolF32, 0.0));
}

TEST_F(VkattnTest, RopeFrequencyDivisors) {
  // Llama 3's per-pair divisors (some below 1, so a pair turns more than once a position) and
  // linear scaling, in both layouts, with a partial rotary dim.
  const int64_t B = 1, H = 3, L = 40, D = 48, rotary = 32;
  auto x = randomValues(B * H * L * D, 43);
  std::vector<double> divisors(rotary / 2);
  for (std::size_t i = 0; i < divisors.size(); ++i) divisors[i] = i % 3 == 0 ? 0.125 : 1.0 + 3.5 * double(i);
  Tensor tx = ctx().tensor({B, H, L, D}, x);
  for (bool interleaved : {false, true}) {
    Tensor ty = rope(ctx(), tx,
                     {.theta = 500000.0,
                      .interleaved = interleaved,
                      .rotaryDim = rotary,
                      .positionOffset = 1000,
                      .frequencyDivisors = divisors});
    EXPECT_TRUE(allClose(ty.download(),
                         ropeRef(x, B, H, L, D, rotary, interleaved, 500000.0, offsetPositions(B, L, 1000), divisors),
                         kAtolF32, 0.0));
  }
  std::vector<double> linear(rotary / 2, 4.0);
  Tensor tl = rope(ctx(), tx, {.rotaryDim = rotary, .frequencyDivisors = linear});
  EXPECT_TRUE(allClose(tl.download(), ropeRef(x, B, H, L, D, rotary, false, 10000.0, offsetPositions(B, L, 0), linear),
                       kAtolF32, 0.0));
  EXPECT_THROW(rope(ctx(), tx, {.rotaryDim = rotary, .frequencyDivisors = {1.0, 2.0}}), InvalidArgument);
  std::vector<double> zero(rotary / 2, 0.0);
  EXPECT_THROW(rope(ctx(), tx, {.rotaryDim = rotary, .frequencyDivisors = zero}), InvalidArgument);
}

TEST_F(VkattnTest, RopeSharedPositionsAndNegativeOffset) {
  const int64_t B = 3, H = 2, L = 6, D = 32;
  auto x = randomValues(B * H * L * D, 41);
  std::vector<int32_t> pos = {9, 3, 0, 12, 7, 100};
  Tensor tx = ctx().tensor({B, H, L, D}, x);
  Tensor ty = rope(ctx(), tx, {.interleaved = true, .positions = Tensor::fromHostInt(ctx().device(), {L}, pos).view()});
  std::vector<int64_t> pos64(B * L);
  for (int64_t i = 0; i < B * L; ++i) pos64[i] = pos[i % L];
  EXPECT_TRUE(allClose(ty.download(), ropeRef(x, B, H, L, D, D, true, 10000.0, pos64), kAtolF32, 0.0));

  Tensor tn = rope(ctx(), tx, {.positionOffset = -3});
  EXPECT_TRUE(
      allClose(tn.download(), ropeRef(x, B, H, L, D, D, false, 10000.0, offsetPositions(B, L, -3)), kAtolF32, 0.0));
}

TEST_F(VkattnTest, RopeQueriesAndKeysWithGroupedHeads) {
  // GQA: 8 query heads, 2 key heads, one call.
  const int64_t B = 2, L = 9, D = 48;
  auto q = randomValues(B * 8 * L * D, 51), k = randomValues(B * 2 * L * D, 52);
  Tensor tq = ctx().tensor({B, 8, L, D}, q), tk = ctx().tensor({B, 2, L, D}, k);
  Tensor qo = ctx().tensor({B, 8, L, D}), ko = ctx().tensor({B, 2, L, D});
  ropeQK(ctx(), tq, qo, tk, ko, {.positionOffset = 11});
  EXPECT_TRUE(
      allClose(qo.download(), ropeRef(q, B, 8, L, D, D, false, 10000.0, offsetPositions(B, L, 11)), kAtolF32, 0.0));
  EXPECT_TRUE(
      allClose(ko.download(), ropeRef(k, B, 2, L, D, D, false, 10000.0, offsetPositions(B, L, 11)), kAtolF32, 0.0));
}

TEST_F(VkattnTest, RopeOnBatchSeqHeadLayoutInPlace) {
  // Storage [B, L, H, D] (as most frameworks keep q after the projection), rotated in place.
  const int64_t B = 2, L = 7, H = 3, D = 16;
  auto x = randomValues(B * L * H * D, 61);
  Tensor t = ctx().tensor({B, L, H, D}, x);
  TensorView bhld = t.view().permuted({0, 2, 1, 3});
  rope(ctx(), bhld, bhld, {.interleaved = true});
  // Reference on the transposed copy, then transpose back.
  std::vector<float> xt(x.size());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t l = 0; l < L; ++l)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t d = 0; d < D; ++d) xt[((b * H + h) * L + l) * D + d] = x[((b * L + l) * H + h) * D + d];
  auto reft = ropeRef(xt, B, H, L, D, D, true, 10000.0, offsetPositions(B, L, 0));
  std::vector<double> ref(x.size());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t l = 0; l < L; ++l)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t d = 0; d < D; ++d) ref[((b * L + l) * H + h) * D + d] = reft[((b * H + h) * L + l) * D + d];
  EXPECT_TRUE(allClose(t.download(), ref, kAtolF32, 0.0));
}

// ropeAppend: a stacked projection's rows (support/stacked_rows.hpp), its queries rotated in
// place, keys rotated into rows start .. start + L of a cache [B, capacity, Hkv D] and values
// copied there; the rest of each buffer untouched.
void checkRopeAppend(Context& ctx, const StackedRows& s, DType dtype, const RopeOptions& options, double atol,
                     bool headNorms = false) {
  const int64_t capacity = s.L + 6, start = 4, kvWidth = s.Hkv * s.D;
  std::vector<float> rows = randomValues(static_cast<std::size_t>(s.B * s.L * s.width()), 71);
  if (dtype == DType::F16) rows = roundToHalf(rows);  // what the f16 rows hold
  Tensor t = ctx.tensor({s.B, s.L, s.width()}, rows, dtype);
  const std::vector<float> before(static_cast<std::size_t>(s.B * capacity * kvWidth), 5.0f);
  Tensor keys = ctx.tensor({s.B, capacity, kvWidth}, before, dtype),
         values = ctx.tensor({s.B, capacity, kvWidth}, before, dtype);
  const auto cacheHeads = [&](const Tensor& cache) {
    return TensorView{
        &cache.buffer(), dtype, {s.B, s.Hkv, s.L, s.D}, {capacity * kvWidth, s.D, kvWidth, 1}, start * kvWidth};
  };
  std::vector<float> qw = randomValues(static_cast<std::size_t>(s.D), 72, 0.5f, 1.5f);
  std::vector<float> kw = randomValues(static_cast<std::size_t>(s.D), 73, -1.5f, 1.5f);
  if (dtype == DType::F16) qw = roundToHalf(qw), kw = roundToHalf(kw);
  Tensor tqw = ctx.tensor({s.D}, qw, dtype), tkw = ctx.tensor({s.D}, kw, dtype);
  std::optional<HeadNorms> norms;
  if (headNorms) norms = HeadNorms{tqw.view(), tkw.view(), 1e-5f};
  ropeAppend(ctx, s.heads(t, 0, s.Hq), s.heads(t, s.Hq, s.Hkv), s.heads(t, s.Hq + s.Hkv, s.Hkv), cacheHeads(keys),
             cacheHeads(values), options, norms);
  const int64_t rotary = options.rotaryDim ? options.rotaryDim : s.D;
  const auto positions =
      offsetPositions(static_cast<std::size_t>(s.B), static_cast<std::size_t>(s.L), options.positionOffset);
  const auto ref = [&](const std::vector<float>& x, int64_t heads) {
    return ropeRef(x, s.B, heads, s.L, s.D, rotary, options.interleaved, options.theta, positions,
                   options.frequencyDivisors);
  };
  const auto normed = [&](std::vector<float> heads, const std::vector<float>& w) {
    return headNorms ? headNormed(heads, s.D, w, 1e-5) : heads;
  };
  const std::vector<float> got = t.download();
  EXPECT_TRUE(allClose(s.gather(got, 0, s.Hq), ref(normed(s.gather(rows, 0, s.Hq), qw), s.Hq), atol, 0.0)) << "queries";
  const std::vector<float> valuesIn = s.gather(rows, s.Hq + s.Hkv, s.Hkv);
  EXPECT_EQ(s.gather(got, s.Hq, 2 * s.Hkv), s.gather(rows, s.Hq, 2 * s.Hkv)) << "keys and values stay in the rows";
  // The cache's rows start .. start + L as [B, Hkv, L, D], and every other row untouched.
  const auto cacheRows = [&](const std::vector<float>& cache, bool inside) {
    return s.cacheRows(cache, capacity, start, inside);
  };
  const std::vector<float> k = keys.download(), v = values.download();
  EXPECT_TRUE(allClose(cacheRows(k, true), ref(normed(s.gather(rows, s.Hq, s.Hkv), kw), s.Hkv), atol, 0.0)) << "keys";
  EXPECT_EQ(cacheRows(v, true), valuesIn) << "values";
  for (const auto* cache : {&k, &v})
    for (float x : cacheRows(*cache, false)) ASSERT_EQ(x, 5.0f) << "a row outside start .. start + L changed";
}

TEST_F(VkattnTest, RopeAppendRotatesQueriesAndKeysAndCopiesValues) {
  checkRopeAppend(ctx(), {.B = 2, .L = 3, .Hq = 4, .Hkv = 2, .D = 16}, DType::F32, {.positionOffset = 7}, kAtolF32);
  checkRopeAppend(ctx(), {.B = 1, .L = 1, .Hq = 6, .Hkv = 1, .D = 32}, DType::F32,
                  {.theta = 500000.0,
                   .interleaved = true,
                   .rotaryDim = 16,
                   .positionOffset = 100000,
                   .frequencyDivisors = std::vector<double>(8, 4.0)},
                  kAtolF32);
  checkRopeAppend(ctx(), {.B = 1, .L = 5, .Hq = 2, .Hkv = 2, .D = 8}, DType::F16, {.positionOffset = 3}, kAtolF16);
}

// With Qwen3's and Gemma 3's head norms before the rotation (heads of 128: 64 pairs, several
// subgroups meeting in shared memory on most devices; and of 16).
TEST_F(VkattnTest, RopeAppendNormalizesHeadsFirst) {
  const double atol = 5e-6;  // the norm's 1e-5 relative on O(1) values, then the rotation's 2e-6
  checkRopeAppend(ctx(), {.B = 2, .L = 3, .Hq = 4, .Hkv = 2, .D = 128}, DType::F32, {.positionOffset = 9}, atol, true);
  checkRopeAppend(ctx(), {.B = 1, .L = 1, .Hq = 3, .Hkv = 1, .D = 16}, DType::F32, {.rotaryDim = 8}, atol, true);
  checkRopeAppend(ctx(), {.B = 1, .L = 2, .Hq = 2, .Hkv = 1, .D = 64}, DType::F16, {}, 4e-3, true);
}

// Positions on the device and caches longer than the step (a decode step recorded once and
// replayed): row (b, l) rotates at positions[b, l] (or positions[l]) and its key and value land in
// the caches' row of that position; every other row untouched; a position outside them reported.
TEST_F(VkattnTest, RopeAppendWritesEachRowAtItsPositionFromTheDevice) {
  const StackedRows s{.B = 2, .L = 3, .Hq = 4, .Hkv = 2, .D = 16};
  const int64_t capacity = 20, kvWidth = s.Hkv * s.D;
  for (const bool perBatch : {true, false}) {
    const std::vector<int32_t> at =
        perBatch ? std::vector<int32_t>{5, 6, 7, 17, 18, 19} : std::vector<int32_t>{0, 9, 4};
    const std::vector<float> rows = randomValues(static_cast<std::size_t>(s.B * s.L * s.width()), 91);
    Tensor t = ctx().tensor({s.B, s.L, s.width()}, rows);
    const std::vector<float> before(static_cast<std::size_t>(s.B * capacity * kvWidth), 5.0f);
    Tensor keys = ctx().tensor({s.B, capacity, kvWidth}, before),
           values = ctx().tensor({s.B, capacity, kvWidth}, before);
    Tensor positions = perBatch ? ctx().tensor({s.B, s.L}, DType::I32) : ctx().tensor({s.L}, DType::I32);
    positions.uploadInt(at);
    const auto wholeCache = [&](const Tensor& cache) {
      return TensorView{
          &cache.buffer(), DType::F32, {s.B, s.Hkv, capacity, s.D}, {capacity * kvWidth, s.D, kvWidth, 1}, 0};
    };
    ropeAppend(ctx(), s.heads(t, 0, s.Hq), s.heads(t, s.Hq, s.Hkv), s.heads(t, s.Hq + s.Hkv, s.Hkv), wholeCache(keys),
               wholeCache(values), {.positions = positions.view()});
    std::vector<int64_t> position(static_cast<std::size_t>(s.B * s.L));
    for (std::size_t i = 0; i < position.size(); ++i)
      position[i] = at[perBatch ? i : i % static_cast<std::size_t>(s.L)];
    const auto ref = [&](int64_t first, int64_t heads) {
      return ropeRef(s.gather(rows, first, heads), s.B, heads, s.L, s.D, s.D, false, 10000.0, position);
    };
    // The caches' rows at the positions as [B, Hkv, L, D]; every other row still 5.
    const auto rowsAt = [&](const std::vector<float>& cache) {
      std::vector<float> out;
      for (int64_t b = 0; b < s.B; ++b)
        for (int64_t h = 0; h < s.Hkv; ++h)
          for (int64_t l = 0; l < s.L; ++l)
            for (int64_t d = 0; d < s.D; ++d)
              out.push_back(
                  cache[static_cast<std::size_t>((b * capacity + position[b * s.L + l]) * kvWidth + h * s.D + d)]);
      return out;
    };
    const std::vector<float> k = keys.download(), v = values.download();
    EXPECT_TRUE(allClose(s.gather(t.download(), 0, s.Hq), ref(0, s.Hq), kAtolF32, 0.0)) << "queries";
    EXPECT_TRUE(allClose(rowsAt(k), ref(s.Hq, s.Hkv), kAtolF32, 0.0)) << "keys";
    EXPECT_EQ(rowsAt(v), s.gather(rows, s.Hq + s.Hkv, s.Hkv)) << "values";
    const auto untouched = [&](const std::vector<float>& cache) {
      return std::count(cache.begin(), cache.end(), 5.0f) ==
             static_cast<std::ptrdiff_t>(cache.size()) - s.B * s.L * kvWidth;
    };
    EXPECT_TRUE(untouched(k) && untouched(v)) << "a row at no position changed";
  }
  // A position outside the caches' rows is reported naming the positions; longer caches need them.
  Tensor t = ctx().tensor({1, 1, s.width()}, randomValues(static_cast<std::size_t>(s.width()), 92));
  const StackedRows one{.B = 1, .L = 1, .Hq = 4, .Hkv = 2, .D = 16};
  Tensor keys = ctx().tensor({1, s.Hkv, 8, s.D}), values = ctx().tensor({1, s.Hkv, 8, s.D});
  Tensor outside = ctx().tensor({1}, DType::I32);
  outside.uploadInt(std::vector<int32_t>{8});
  const auto append = [&](const RopeOptions& options) {
    ropeAppend(ctx(), one.heads(t, 0, 4), one.heads(t, 4, 2), one.heads(t, 6, 2), keys, values, options);
  };
  EXPECT_EQ(invalidArgumentOf([&] { append({.positions = outside.view()}); }), "positions");
  EXPECT_EQ(invalidArgumentOf([&] { append({.positionOffset = 3}); }), "keysOut");
}

TEST_F(VkattnTest, RopeAppendBadArgumentsAreNamed) {
  const StackedRows s{.B = 1, .L = 2, .Hq = 2, .Hkv = 1, .D = 8};
  Tensor t = ctx().tensor({1, 2, s.width()}, randomValues(static_cast<std::size_t>(2 * s.width()), 81));
  Tensor other = ctx().tensor({1, 2, s.width()}, randomValues(static_cast<std::size_t>(2 * s.width()), 82));
  Tensor cache = ctx().tensor({1, 1, 2, 8}), cache2 = ctx().tensor({1, 1, 2, 8});
  const TensorView q = s.heads(t, 0, 2), k = s.heads(t, 2, 1), v = s.heads(t, 3, 1);
  EXPECT_EQ(invalidArgumentOf([&] { ropeAppend(ctx(), q, k, v, cache, cache2, {.positions = cache.view()}); }),
            "positions");
  EXPECT_EQ(invalidArgumentOf([&] { ropeAppend(ctx(), q, s.heads(other, 2, 1), v, cache, cache2); }), "k");
  EXPECT_EQ(invalidArgumentOf([&] { ropeAppend(ctx(), q, k, v, s.heads(t, 3, 1), cache2); }), "keysOut");
  EXPECT_EQ(invalidArgumentOf([&] { ropeAppend(ctx(), q, k, s.heads(other, 3, 1), cache, cache2); }), "v");
  std::vector<float> rows = randomValues(static_cast<std::size_t>(2 * s.width()), 83);
  rows[static_cast<std::size_t>(s.width() + 3 * 8 + 2)] = std::numeric_limits<float>::quiet_NaN();  // a value
  Tensor nan = ctx().tensor({1, 2, s.width()}, rows);
  EXPECT_EQ(invalidArgumentOf(
                [&] { ropeAppend(ctx(), s.heads(nan, 0, 2), s.heads(nan, 2, 1), s.heads(nan, 3, 1), cache, cache2); }),
            "v");
  Tensor norm = ctx().tensor({8}, randomValues(8, 84)), shortNorm = ctx().tensor({7}, randomValues(7, 85));
  EXPECT_EQ(invalidArgumentOf([&] {
              ropeAppend(ctx(), q, k, v, cache, cache2, {}, HeadNorms{shortNorm, norm});
            }),
            "headNorms.q");
  EXPECT_EQ(invalidArgumentOf([&] {
              ropeAppend(ctx(), q, k, v, cache, cache2, {}, HeadNorms{norm, norm, -1.0f});
            }),
            "headNorms.eps");
}

TEST_F(VkattnTest, RopePhaseStepsAreFractionsOfATurn) {
  // Independent check of the fixed-point steps: step 0 is 1 rad = 1/(2 pi) turn.
  auto steps = ropePhaseSteps(10000.0, 4);
  ASSERT_EQ(steps.size(), 4u);
  const double turns0 = (steps[0] + steps[1] / 4294967296.0) / 4294967296.0;
  EXPECT_NEAR(turns0, 1.0 / (2.0 * 3.14159265358979323846), 1e-15);
  const double turns1 = (steps[2] + steps[3] / 4294967296.0) / 4294967296.0;
  EXPECT_NEAR(turns1, 0.01 / (2.0 * 3.14159265358979323846), 1e-15);
}

}  // namespace
}  // namespace vkattn::test
