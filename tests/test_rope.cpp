// RoPE conformance against the double reference: both pair layouts, partial rotary dims, GQA
// head counts, position tensors and offsets, large positions, strided [B, L, H, D] views, f16.
#include "support/compare.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/rope.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

const double kAtolF32 = toleranceFor(Checked::Rope, DType::F32).atol;
const double kAtolF16 = toleranceFor(Checked::Rope, DType::F16).atol;

std::vector<int64_t> offsetPositions(std::size_t B, std::size_t L, int64_t offset) {
  std::vector<int64_t> p(B * L);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t l = 0; l < L; ++l) p[b * L + l] = offset + static_cast<int64_t>(l);
  return p;
}

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
