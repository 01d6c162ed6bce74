// gatedLinear(): y = act(x Wg^T) * (x Wu^T) from one weight [2F, K] holding the gate's rows, then
// the up projection's, against a double reference over the host-decoded weights: the fused
// matrix-vector dispatch (block formats and f16 weights under f32 x, up to 8 rows, chunks of 8 on
// CPU drivers, the GPU profile's one column per workgroup, a forced work split, the integer-dot
// kernel), and the two products plus gatedActivation() everywhere else (float weights, the tiled
// kernel); SiLU and tanh GELU; NaN reports and bad arguments named.
// Tolerance: each product's (test_quantized_linear.cpp: 1e-6 + 1e-6 |p| + 1e-5 sum_k |x w|)
// carried through the gate (reference::gatedRef).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "support/dot_compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/half.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

constexpr double kAtol = 1e-6, kRtol = 1e-6, kDotRtol = 1e-5;
// Weights the fused dispatch reads (block formats; f16 under f32 x), and f32 weights (the two
// products and gatedActivation).
constexpr DType kWeights[] = {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::F16, DType::F32};

struct StackedWeight {
  Tensor tensor;               // [2F, K]
  std::vector<float> decoded;  // what its rows decode to
};

StackedWeight stackedWeight(Context& ctx, DType format, int64_t f, int64_t k, uint64_t seed) {
  const std::vector<float> values = randomValues(static_cast<std::size_t>(2 * f * k), seed);
  if (format == DType::F32) return {ctx.tensor({2 * f, k}, values), values};
  const std::vector<std::byte> bytes = encodeValues(format, values);
  StackedWeight w{ctx.tensor({2 * f, k}, format), decodeValues(format, bytes, 2 * f * k)};
  w.tensor.uploadBytes(bytes.data(), bytes.size());
  return w;
}

// The reference of gatedLinear(x, w) for x [M, K]: the gate's and the up projection's products.
MatmulRef expected(const std::vector<float>& x, const StackedWeight& w, int64_t m, int64_t f, int64_t k, Activation act,
                   bool xIn8Bits = false) {
  const auto M = static_cast<std::size_t>(m), F = static_cast<std::size_t>(f), K = static_cast<std::size_t>(k);
  const std::vector<float> gateRows(w.decoded.begin(), w.decoded.begin() + static_cast<std::ptrdiff_t>(F * K));
  const std::vector<float> upRows(w.decoded.begin() + static_cast<std::ptrdiff_t>(F * K), w.decoded.end());
  MatmulRef gate = linearRef(x, gateRows, M, F, K, nullptr, Activation::None, nullptr);
  MatmulRef up = linearRef(x, upRows, M, F, K, nullptr, Activation::None, nullptr);
  if (xIn8Bits) {
    addXRounding8Bit(gate, x, gateRows, M, F, K);
    addXRounding8Bit(up, x, upRows, M, F, K);
  }
  return gatedRef(gate, up, act, kAtol, kRtol, kDotRtol);
}

class GatedLinear : public VkattnTest, public ::testing::WithParamInterface<DType> {
 protected:
  DType format() const { return GetParam(); }
  // K's step: a block, or 32 for float weights (the matrix-vector kernel's unit for f16).
  int64_t block() const { return isWeightFormat(format()) ? blockElements(format()) : 32; }
  void check(Context& ctx, int64_t m, int64_t f, int64_t blocks, Activation act, uint64_t seed,
             WeightKernel kernel = WeightKernel::Auto) {
    const int64_t k = blocks * block();
    const StackedWeight w = stackedWeight(ctx, format(), f, k, seed);
    const std::vector<float> x = randomValues(static_cast<std::size_t>(m * k), seed + 1);
    Tensor y = ctx.tensor({m, f}, DType::F32);
    gatedLinear(ctx, ctx.tensor({m, k}, x), w.tensor, y, {.activation = act, .weightKernel = kernel});
    EXPECT_TRUE(
        dotClose(y.download(), expected(x, w, m, f, k, act, kernel == WeightKernel::MatvecInt8), kAtol, kRtol, 0.0))
        << "M=" << m << " F=" << f << " K=" << k << " " << toString(act) << " " << toString(kernel);
  }
};

// Decode shapes (one dispatch where the weights are read by the matrix-vector kernel), rows past
// 8 (CPU drivers: chunks of 8; GPUs: the tiled kernel, two products), one output or many.
TEST_P(GatedLinear, MatchesTheReference) {
  for (Activation act : {Activation::Silu, Activation::GeluTanh}) {
    check(ctx(), 1, 1, 1, act, 100);
    check(ctx(), 3, 37, 2, act, 110);
    check(ctx(), 8, 100, 3, act, 120);
    check(ctx(), 11, 33, 2, act, 130);
    check(ctx(), 1, 300, 5, act, 140);
  }
}

// The GPU profile's shapes on this device: one output column (a gate and an up row) per
// workgroup of several subgroups; 37 rows take the tiled kernel, so two products.
TEST_P(GatedLinear, GpuProfileShapes) {
  Context gpu({.profile = KernelProfile::Gpu});
  check(gpu, 3, 33, 2, Activation::Silu, 200);
  check(gpu, 37, 20, 1, Activation::Silu, 210);
}

// A work split neither profile chooses (VKATTN_WEIGHT_MATVEC_TILE): two pieces per invocation,
// three output columns (six rows of W) per workgroup, two subgroups.
TEST_P(GatedLinear, ForcedMatvecTileMatches) {
  if (!isWeightFormat(format()) && format() != DType::F16) GTEST_SKIP() << "float weights take the float kernels";
  const uint32_t lanes = std::max<uint32_t>(8, ctx().info().subgroupSize);
  const std::string tile = "2x3x" + std::to_string(2 * lanes);
  ::setenv("VKATTN_WEIGHT_MATVEC_TILE", tile.c_str(), 1);
  check(ctx(), 3, 19, 2, Activation::Silu, 300, WeightKernel::Matvec);
  ::unsetenv("VKATTN_WEIGHT_MATVEC_TILE");
}

// The integer-dot matrix-vector kernel, where the device has it: x rounded to 8 bits, so each
// product's tolerance adds x's rounding.
TEST_P(GatedLinear, IntegerDotMatrixVector) {
  if (!isWeightFormat(format())) GTEST_SKIP() << "no quants to take 8-bit dot products with";
  if (!ctx().info().integerDotProduct) GTEST_SKIP() << ctx().info().name << " has no shaderIntegerDotProduct";
  check(ctx(), 3, 37, 2, Activation::Silu, 400, WeightKernel::MatvecInt8);
  check(ctx(), 11, 5, 1, Activation::GeluTanh, 410, WeightKernel::MatvecInt8);
}

// f16 x and y (the fused dispatch stores act(g) u rounded to f16), against the f16 linear tolerance.
TEST_P(GatedLinear, F16Activations) {
  if (format() == DType::F32) GTEST_SKIP() << "f32 weights under f16 x are refused by linear too";
  const int64_t m = 2, f = 24, k = 2 * block();
  const StackedWeight w = stackedWeight(ctx(), format(), f, k, 500);
  const std::vector<float> x = roundToHalf(randomValues(static_cast<std::size_t>(m * k), 501));
  Tensor y = ctx().tensor({m, f}, DType::F16);
  gatedLinear(ctx(), ctx().tensor({m, k}, x, DType::F16), w.tensor, y);
  const Tolerance half = toleranceFor(Checked::Linear, DType::F16);
  const auto M = static_cast<std::size_t>(m), F = static_cast<std::size_t>(f), K = static_cast<std::size_t>(k);
  const std::vector<float> gateRows(w.decoded.begin(), w.decoded.begin() + static_cast<std::ptrdiff_t>(F * K));
  const std::vector<float> upRows(w.decoded.begin() + static_cast<std::ptrdiff_t>(F * K), w.decoded.end());
  const MatmulRef ref = gatedRef(linearRef(x, gateRows, M, F, K, nullptr, Activation::None, nullptr),
                                 linearRef(x, upRows, M, F, K, nullptr, Activation::None, nullptr), Activation::Silu,
                                 half.atol, half.rtol, half.dotRtol);
  EXPECT_TRUE(dotClose(y.download(), ref, half.atol, half.rtol, 0.0));
}

// NaN in an up row's weights, or in x, is named after the run, from the fused dispatch and from
// the two products alike.
TEST_P(GatedLinear, NanInputsAreNamed) {
  const int64_t f = 9, k = 2 * block();
  // Up row 4: its second block's f16 scale (block formats) or one of its values, made NaN.
  std::vector<float> values = randomValues(static_cast<std::size_t>(2 * f * k), 600);
  Tensor w = ctx().tensor({2 * f, k}, format());
  if (format() == DType::F32) {
    values[static_cast<std::size_t>((f + 4) * k + 3)] = std::numeric_limits<float>::quiet_NaN();
    w.upload(values);
  } else {
    std::vector<std::byte> bytes = encodeValues(format(), values);
    const std::size_t at = isWeightFormat(format()) ? static_cast<std::size_t>((f + 4) * 2 + 1) * blockBytes(format()) +
                                                          (format() == DType::Q6_K ? 208 : 0)
                                                    : static_cast<std::size_t>((f + 4) * k + 3) * 2;
    const uint16_t nan = 0x7e00;
    std::memcpy(bytes.data() + at, &nan, 2);
    w.uploadBytes(bytes.data(), bytes.size());
  }
  const StackedWeight good = stackedWeight(ctx(), format(), f, k, 601);
  for (int64_t m : {int64_t{2}, int64_t{20}}) {
    SCOPED_TRACE("M=" + std::to_string(m));
    std::vector<float> xv = randomValues(static_cast<std::size_t>(m * k), 602);
    Tensor y = ctx().tensor({m, f}, DType::F32);
    EXPECT_EQ(invalidArgumentOf([&] { gatedLinear(ctx(), ctx().tensor({m, k}, xv), w, y); }), "weight");
    xv[static_cast<std::size_t>(k + 3)] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(invalidArgumentOf([&] { gatedLinear(ctx(), ctx().tensor({m, k}, xv), good.tensor, y); }), "x");
  }
}

INSTANTIATE_TEST_SUITE_P(Weights, GatedLinear, ::testing::ValuesIn(kWeights),
                         [](const ::testing::TestParamInfo<DType>& info) { return toString(info.param); });

// One dispatch when decoding with block-format weights: no elementwise pipeline is built.
TEST_F(VkattnTest, GatedDecodeIsOneDispatch) {
  Context fresh;
  const StackedWeight w = stackedWeight(fresh, DType::Q4_K, 16, 256, 700);
  Tensor y = fresh.tensor({1, 16}, DType::F32);
  gatedLinear(fresh, fresh.tensor({1, 256}, randomValues(256, 701)), w.tensor, y);
  const auto pipelines = fresh.pipelines().all();
  ASSERT_EQ(pipelines.size(), 1u);
  EXPECT_EQ(pipelines[0]->name().rfind("linear_q_matvec", 0), 0u) << pipelines[0]->name();
}

TEST_F(VkattnTest, GatedLinearBadArgumentsAreNamed) {
  const StackedWeight w = stackedWeight(ctx(), DType::Q8_0, 8, 64, 800);
  Tensor x = ctx().tensor({2, 64}, randomValues(128, 801));
  Tensor y = ctx().tensor({2, 8}, DType::F32);
  Tensor odd = ctx().tensor({15, 64}, DType::Q8_0);
  EXPECT_EQ(invalidArgumentOf([&] { gatedLinear(ctx(), x, odd, y); }), "weight");
  EXPECT_EQ(invalidArgumentOf([&] { gatedLinear(ctx(), x, w.tensor, ctx().tensor({2, 16}, DType::F32)); }), "y");
  Tensor wide = ctx().tensor({2, 16}, DType::F32);
  EXPECT_EQ(invalidArgumentOf([&] { gatedLinear(ctx(), x, w.tensor, wide.view().sliced(1, 0, 8)); }), "y");
  EXPECT_EQ(invalidArgumentOf([&] { gatedLinear(ctx(), ctx().tensor({2, 32}, DType::F32), w.tensor, y); }), "weight");
}

}  // namespace
}  // namespace vkattn::test
