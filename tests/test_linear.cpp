// linear / matmul conformance against the double reference, for every kernel variant forced on
// this device (rows, tiled, naive, and the cooperative-matrix kernel with emulated fragments
// wherever those run, so CI executes its tiling and staging): odd shapes (1, 5, 7, 33, 100, 1000, 4099), bias, each
// activation, residual (also in place), f16 storage, strided rows, batched matmul with B as
// [K, N] and [N, K], grids past the dispatch limit; and bad input named in the error.
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <string>
#include <tuple>

#include "support/dot_compare.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

// The tolerance every matmul kernel header documents: atol + rtol |ref| + dotRtol sum_k |a b|.
const double kAtolF32 = toleranceFor(Checked::Linear, DType::F32).atol,
             kRtolF32 = toleranceFor(Checked::Linear, DType::F32).rtol,
             kDotF32 = toleranceFor(Checked::Linear, DType::F32).dotRtol;
const double kAtolF16 = toleranceFor(Checked::Linear, DType::F16).atol,
             kRtolF16 = toleranceFor(Checked::Linear, DType::F16).rtol,
             kDotF16 = toleranceFor(Checked::Linear, DType::F16).dotRtol;

constexpr Activation kActivations[] = {Activation::None, Activation::Relu, Activation::Gelu, Activation::GeluTanh,
                                       Activation::Silu};

using Shape3 = std::tuple<int64_t, int64_t, int64_t>;  // M, N, K

// Whether this device can run the emulated fragments (compiled for fixed 8-lane subgroups with
// shuffles).
bool emulatedFragmentsRun(const Context& ctx) {
  const DeviceInfo& i = ctx.info();
  return i.subgroupSize == 8 && i.minSubgroupSize == i.maxSubgroupSize && i.subgroupShuffle;
}

// Test names: the emulated kernel's cases get their own `vkattn conformance` row ("kernel_").
std::string variantTestName(MatmulVariant v) {
  if (v == MatmulVariant::Coopmat) return "kernel_coopmat";
  if (v == MatmulVariant::CoopmatEmulated) return "kernel_coopmat_emulated";
  if (v == MatmulVariant::Coopmat2Workgroup) return "kernel_coopmat2_wg";
  if (v == MatmulVariant::Matvec) return "kernel_matvec";
  return toString(v);
}

class LinearTest : public VkattnTest, public ::testing::WithParamInterface<MatmulVariant> {
 protected:
  void SetUp() override {
    VkattnTest::SetUp();
    if (variant() == MatmulVariant::CoopmatEmulated && !emulatedFragmentsRun(ctx()))
      GTEST_SKIP() << "the emulated fragments need fixed 8-lane subgroups with shuffles";
  }
  MatmulVariant variant() const { return GetParam(); }
  void checkLinear(int64_t m, int64_t n, int64_t k, uint64_t seed);
};

void LinearTest::checkLinear(int64_t m, int64_t n, int64_t k, uint64_t seed) {
  SCOPED_TRACE("M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k));
  const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
  auto x = randomValues(M * K, seed), w = randomValues(N * K, seed + 1);
  auto b = randomValues(N, seed + 2, -2.0f, 2.0f), r = randomValues(M * N, seed + 3);
  Tensor tx = ctx().tensor({m, k}, x), tw = ctx().tensor({n, k}, w), tb = ctx().tensor({n}, b);
  Tensor tr = ctx().tensor({m, n}, r);
  EXPECT_TRUE(dotClose(linear(ctx(), tx, tw, {.variant = variant()}).download(),
                       linearRef(x, w, M, N, K, nullptr, Activation::None, nullptr), kAtolF32, kRtolF32, kDotF32));
  for (Activation act : kActivations) {
    SCOPED_TRACE(toString(act));
    Tensor y = linear(ctx(), tx, tw, {.bias = tb.view(), .activation = act, .variant = variant()});
    EXPECT_TRUE(dotClose(y.download(), linearRef(x, w, M, N, K, &b, act, nullptr), kAtolF32, kRtolF32, kDotF32));
  }
  Tensor y = linear(ctx(), tx, tw,
                    {.bias = tb.view(), .activation = Activation::Gelu, .residual = tr.view(), .variant = variant()});
  EXPECT_TRUE(dotClose(y.download(), linearRef(x, w, M, N, K, &b, Activation::Gelu, &r), kAtolF32, kRtolF32, kDotF32));

  // f16 storage: the reference sees the same fp16-rounded inputs.
  auto xh = roundToHalf(x), wh = roundToHalf(w), bh = roundToHalf(b), rh = roundToHalf(r);
  Tensor hx = ctx().tensor({m, k}, xh, DType::F16), hw = ctx().tensor({n, k}, wh, DType::F16);
  Tensor hb = ctx().tensor({n}, bh, DType::F16), hr = ctx().tensor({m, n}, rh, DType::F16);
  Tensor hy = linear(ctx(), hx, hw,
                     {.bias = hb.view(), .activation = Activation::Silu, .residual = hr.view(), .variant = variant()});
  EXPECT_EQ(hy.dtype(), DType::F16);
  EXPECT_TRUE(
      dotClose(hy.download(), linearRef(xh, wh, M, N, K, &bh, Activation::Silu, &rh), kAtolF16, kRtolF16, kDotF16));
}

TEST_P(LinearTest, OddShapes) {
  const Shape3 shapes[] = {{1, 1, 1},    {5, 7, 33},    {7, 33, 5},    {33, 5, 7},   {1, 100, 1000}, {100, 33, 100},
                           {1000, 5, 7}, {4099, 7, 33}, {5, 4099, 33}, {7, 5, 4099}, {33, 100, 1000}};
  uint64_t seed = 10;
  for (auto [m, n, k] : shapes) checkLinear(m, n, k, seed += 10);
}

TEST_P(LinearTest, ModelShapes) {
  for (int64_t n : {128, 256, 384, 512}) checkLinear(32, n, 128, 500 + static_cast<uint64_t>(n));
  checkLinear(1, 384, 128, 600);  // decode: one token
}

TEST_P(LinearTest, LeadingDimsStridedRowsAndInPlaceResidual) {
  // x [2, 3, 40] is a slice of the first 40 of 44 features; y [2, 3, 20] a slice of 24 columns.
  const int64_t k = 40, n = 20, padK = 44, padN = 24;
  auto big = randomValues(6 * padK, 41), w = randomValues(n * k, 42), r = randomValues(6 * n, 43);
  std::vector<float> x;
  for (int64_t row = 0; row < 6; ++row)
    for (int64_t c = 0; c < k; ++c) x.push_back(big[static_cast<std::size_t>(row * padK + c)]);
  Tensor tbig = ctx().tensor({2, 3, padK}, big), tw = ctx().tensor({n, k}, w);
  Tensor tybig = ctx().tensor({2, 3, padN}, std::vector<float>(6 * padN, 0.0f));
  TensorView xv = tbig.view(), yv = tybig.view();
  xv.shape.back() = k;
  yv.shape.back() = n;
  yv.offset = 2;  // and not at the buffer's start
  linear(ctx(), xv, tw, yv, {.variant = variant()});
  const MatmulRef ref = linearRef(x, w, 6, n, k, nullptr, Activation::None, nullptr);
  auto all = tybig.download();
  std::vector<float> got;
  for (int64_t row = 0; row < 6; ++row)
    for (int64_t c = 0; c < n; ++c) got.push_back(all[static_cast<std::size_t>(row * padN + 2 + c)]);
  EXPECT_TRUE(dotClose(got, ref, kAtolF32, kRtolF32, kDotF32));

  // y += x W^T, with the residual bound to y itself.
  Tensor tx = ctx().tensor({2, 3, k}, x), ty = ctx().tensor({2, 3, n}, r);
  linear(ctx(), tx, tw, ty, {.residual = ty.view(), .variant = variant()});
  EXPECT_TRUE(
      dotClose(ty.download(), linearRef(x, w, 6, n, k, nullptr, Activation::None, &r), kAtolF32, kRtolF32, kDotF32));
}

TEST_P(LinearTest, BatchedMatmulBothLayoutsOfB) {
  const std::size_t batch = 3;
  for (auto [m, n, k] : {Shape3{5, 7, 33}, Shape3{33, 100, 7}, Shape3{1, 8, 16}, Shape3{64, 64, 64}}) {
    SCOPED_TRACE("M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k));
    const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
    auto a = randomValues(batch * M * K, 70 + M), bkn = randomValues(batch * K * N, 71 + N);
    Tensor ta = ctx().tensor({3, m, k}, a);
    Tensor tkn = ctx().tensor({3, k, n}, bkn), tnk = ctx().tensor({3, n, k}, bkn);
    Tensor c = matmul(ctx(), ta, tkn, {.alpha = 0.5f, .variant = variant()});
    EXPECT_EQ(c.shape(), (Shape{3, m, n}));
    EXPECT_TRUE(
        dotClose(c.download(), matmulRef(a, bkn, batch, M, N, K, false, false, 0.5), kAtolF32, kRtolF32, kDotF32));
    Tensor ct = matmul(ctx(), ta, tnk, {.transposeB = true, .variant = variant()});
    EXPECT_TRUE(dotClose(ct.download(), matmulRef(a, bkn, batch, M, N, K, true), kAtolF32, kRtolF32, kDotF32));
    // One B for every batch entry (batch dim 1), and plain rank 2.
    Tensor one =
        ctx().tensor({1, k, n}, std::vector<float>(bkn.begin(), bkn.begin() + static_cast<std::ptrdiff_t>(K * N)));
    EXPECT_TRUE(dotClose(matmul(ctx(), ta, one, {.variant = variant()}).download(),
                         matmulRef(a, bkn, batch, M, N, K, false, true), kAtolF32, kRtolF32, kDotF32));
    Tensor a2 = ctx().tensor({m, k}, std::vector<float>(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(M * K)));
    Tensor b2 = ctx().tensor({n, k}, std::vector<float>(bkn.begin(), bkn.begin() + static_cast<std::ptrdiff_t>(N * K)));
    EXPECT_TRUE(dotClose(matmul(ctx(), a2, b2, {.transposeB = true, .variant = variant()}).download(),
                         matmulRef(a, bkn, 1, M, N, K, true), kAtolF32, kRtolF32, kDotF32));
    auto ah = roundToHalf(a), bh = roundToHalf(bkn);
    Tensor ha = ctx().tensor({3, m, k}, ah, DType::F16), hb = ctx().tensor({3, k, n}, bh, DType::F16);
    EXPECT_TRUE(dotClose(matmul(ctx(), ha, hb, {.variant = variant()}).download(),
                         matmulRef(ah, bh, batch, M, N, K, false), kAtolF16, kRtolF16, kDotF16));
  }
}

TEST_P(LinearTest, GridsPastTheDispatchLimit) {
  // More workgroups than maxWorkgroupCount[0] for every variant: they spread over y.
  const int64_t m = 4'200'000, n = 2, k = 1;
  const uint64_t limit = ctx().info().maxWorkgroupCount[0];
  // 65535 on most drivers; GPUs with 2^31 - 1 (NVIDIA) are never passed by a shape that fits memory.
  if (static_cast<uint64_t>(m / 64) <= limit)
    GTEST_SKIP() << "this device dispatches up to " << limit
                 << " workgroups along x: no shape that fits in memory passes it";
  auto x = randomValues(static_cast<std::size_t>(m), 90), w = randomValues(2, 91);
  Tensor y = linear(ctx(), ctx().tensor({m, k}, x), ctx().tensor({n, k}, w), {.variant = variant()});
  EXPECT_TRUE(dotClose(y.download(),
                       linearRef(x, w, static_cast<std::size_t>(m), 2, 1, nullptr, Activation::None, nullptr), kAtolF32,
                       kRtolF32, kDotF32));
}

void expectInvalid(const std::string& argument, const std::function<void()>& call) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected InvalidArgument for '" << argument << "'";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), argument) << e.what();
  }
}

TEST_P(LinearTest, BadInputNamesTheArgument) {
  Context& c = ctx();
  const LinearOptions base{.variant = variant()};
  Tensor x = c.tensor({5, 8}, randomValues(40, 1)), w = c.tensor({3, 8}, randomValues(24, 2));
  Tensor y = c.tensor({5, 3});
  expectInvalid("weight", [&] { linear(c, x, c.tensor({3, 7}), base); });
  expectInvalid("bias", [&] { linear(c, x, w, {.bias = c.tensor({4}).view(), .variant = variant()}); });
  expectInvalid("residual", [&] { linear(c, x, w, {.residual = c.tensor({5, 4}).view(), .variant = variant()}); });
  expectInvalid("weight", [&] { linear(c, x, c.tensor({3, 8}, randomValues(24, 3), DType::F16), base); });
  expectInvalid("y", [&] { linear(c, x, w, c.tensor({5, 4}), base); });
  expectInvalid("y", [&] { linear(c, x, w, x, base); });  // y overlapping x
  expectInvalid("x", [&] { linear(c, x.view().permuted({1, 0}), w, base); });
  expectInvalid("x", [&] { linear(c, Tensor::fromHostInt(c.device(), {5, 8}, std::vector<int32_t>(40, 1)), w, base); });
  expectInvalid("b", [&] { matmul(c, x, w, {.variant = variant()}); });  // [5, 8] x [3, 8] without transposeB
  expectInvalid("alpha", [&] { matmul(c, x, w, {.transposeB = true, .alpha = NAN, .variant = variant()}); });
  expectInvalid("c", [&] { matmul(c, x, w, c.tensor({5, 4}), {.transposeB = true, .variant = variant()}); });

  // NaN inputs, reported after the run under the argument's name.
  auto withNan = [&](Shape shape, std::size_t at) {
    auto v = randomValues(static_cast<std::size_t>(elementCount(shape)), 5);
    v[at] = NAN;
    return c.tensor(shape, v);
  };
  expectInvalid("x", [&] { linear(c, withNan({5, 8}, 17), w, base); });
  expectInvalid("weight", [&] { linear(c, x, withNan({3, 8}, 23), base); });
  expectInvalid("bias", [&] { linear(c, x, w, {.bias = withNan({3}, 1).view(), .variant = variant()}); });
  expectInvalid("residual", [&] { linear(c, x, w, {.residual = withNan({5, 3}, 14).view(), .variant = variant()}); });
  expectInvalid("a", [&] { matmul(c, withNan({5, 8}, 39), w, {.transposeB = true, .variant = variant()}); });
  expectInvalid("b", [&] { matmul(c, x, withNan({8, 3}, 0), {.variant = variant()}); });
  // The context recovers: the next call runs normally.
  EXPECT_NO_THROW(linear(c, x, w, y, base));
}

TEST_P(LinearTest, LongKBeyondTheLoopLimitIsRefusedByName) {
  const uint32_t limit = ctx().info().loopIterationLimit;
  if (limit == 0) GTEST_SKIP() << "no loop limit on this device";
  const int64_t k = int64_t{limit} * 4;
  Tensor x = ctx().tensor({1, k}), w = ctx().tensor({1, k});
  try {
    linear(ctx(), x, w, {.variant = variant()});
    ADD_FAILURE() << "K = " << k << " accepted";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("K = " + std::to_string(k)), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(toString(resolveMatmulVariant(ctx(), variant()))), std::string::npos)
        << e.what();
  }
}

TEST_F(VkattnTest, RowsKernelWithoutSubgroupShuffles) {
  // The GPU profile's rows kernel: 64-lane workgroups, every lane loading a itself (no shuffle).
  Context gpu({.profile = KernelProfile::Gpu});
  for (auto [m, n, k] : {Shape3{5, 7, 33}, Shape3{33, 100, 64}, Shape3{70, 300, 129}}) {
    const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
    auto x = randomValues(M * K, 80 + M), w = randomValues(N * K, 81 + N), b = randomValues(N, 82);
    Tensor y =
        linear(gpu, gpu.tensor({m, k}, x), gpu.tensor({n, k}, w),
               {.bias = gpu.tensor({n}, b).view(), .activation = Activation::Relu, .variant = MatmulVariant::Rows});
    EXPECT_TRUE(
        dotClose(y.download(), linearRef(x, w, M, N, K, &b, Activation::Relu, nullptr), kAtolF32, kRtolF32, kDotF32));
    Tensor c = matmul(gpu, gpu.tensor({m, k}, x), gpu.tensor({k, n}, w), {.variant = MatmulVariant::Rows});
    EXPECT_TRUE(dotClose(c.download(), matmulRef(x, w, 1, M, N, K, false), kAtolF32, kRtolF32, kDotF32));
  }
  EXPECT_EQ(resolveMatmulVariant(gpu), MatmulVariant::Tiled);
}

TEST_F(VkattnTest, GpuDenseLayersOfFewRowsRunTheMatvecKernel) {
  // On GPUs, Auto sends a dense layer of at most 8 rows (decode) to the matrix-vector kernel, in
  // both storage types and with unaligned K; 9 rows and B [K, N] stay with the tiled kernels.
  Context gpu({.profile = KernelProfile::Gpu});
  auto ranMatvec = [&gpu] {
    for (const Pipeline* pipeline : gpu.pipelines().all())
      if (pipeline->name().rfind("matmul_matvec", 0) == 0) return true;
    return false;
  };
  for (auto [m, n, k] : {Shape3{1, 300, 129}, Shape3{8, 64, 4096}, Shape3{3, 1, 6}}) {
    const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
    auto x = roundToHalf(randomValues(M * K, 70 + M)), w = roundToHalf(randomValues(N * K, 71 + N));
    auto b = roundToHalf(randomValues(N, 72));
    for (DType dtype : {DType::F32, DType::F16}) {
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + toString(dtype));
      const bool half = dtype == DType::F16;
      Tensor y = linear(gpu, gpu.tensor({m, k}, x, dtype), gpu.tensor({n, k}, w, dtype),
                        {.bias = gpu.tensor({n}, b, dtype).view(), .activation = Activation::Silu});
      EXPECT_TRUE(dotClose(y.download(), linearRef(x, w, M, N, K, &b, Activation::Silu, nullptr),
                           half ? kAtolF16 : kAtolF32, half ? kRtolF16 : kRtolF32, half ? kDotF16 : kDotF32));
    }
  }
  EXPECT_TRUE(ranMatvec());
  Context wide({.profile = KernelProfile::Gpu});
  auto x = randomValues(9 * 64, 73), w = randomValues(64 * 64, 74);
  linear(wide, wide.tensor({9, 64}, x), wide.tensor({64, 64}, w));
  matmul(wide, wide.tensor({1, 64}, randomValues(64, 75)), wide.tensor({64, 64}, w));  // B [K, N]
  for (const Pipeline* pipeline : wide.pipelines().all()) EXPECT_NE(pipeline->name().rfind("matmul_matvec", 0), 0u);
}

TEST_F(VkattnTest, SmallProductsShareOneLightPipeline) {
  // On CPU drivers every product of at most 2^22 multiply-adds takes one light block shape, so the
  // translation model's layers (1 to 16 tokens, 128 to 526 features) build one rows pipeline at
  // their first dispatch instead of one per shape; the results stay those of the reference.
  Context cpu({.profile = KernelProfile::CpuDriver});
  const std::size_t before = cpu.pipelines().size();
  for (auto [m, n, k] :
       {Shape3{1, 128, 128}, Shape3{2, 256, 128}, Shape3{3, 128, 256}, Shape3{16, 526, 128}, Shape3{9, 40, 64}}) {
    const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
    auto x = randomValues(M * K, 90 + M), w = randomValues(N * K, 91 + N), b = randomValues(N, 92);
    Tensor y =
        linear(cpu, cpu.tensor({m, k}, x), cpu.tensor({n, k}, w),
               {.bias = cpu.tensor({n}, b).view(), .activation = Activation::Gelu, .variant = MatmulVariant::Rows});
    EXPECT_TRUE(
        dotClose(y.download(), linearRef(x, w, M, N, K, &b, Activation::Gelu, nullptr), kAtolF32, kRtolF32, kDotF32))
        << m << "x" << n << "x" << k;
  }
  EXPECT_EQ(cpu.pipelines().size() - before, 1u);
}

// The fragment kernel's own f16 case list, one case per shape: on the device's matrix units
// wherever it has them (KHR at its own fragment shape, or NV; elsewhere asking for the kernel must be
// refused by name, in one case; the rest are skipped), with emulated fragments wherever those run,
// and on the workgroup-scope cooperative-matrix-2 kernel where the device offers it (refused as
// the first elsewhere). Shapes leave
// partial fragments and tiles on every side, for 8- and 16-wide fragments alike.
constexpr Shape3 kFragmentShapes[] = {
    {1, 1, 1},      {5, 7, 33},     {8, 8, 8},     {16, 16, 16},  {17, 9, 31},      {64, 64, 64},      {65, 63, 17},
    {100, 33, 100}, {32, 384, 128}, {1, 384, 128}, {3, 1000, 64}, {1000, 3, 64},    {33, 65, 129},     {128, 128, 128},
    {24, 40, 56},   {200, 8, 16},   {9, 200, 72},  {2, 2, 2000},  {257, 130, 1000}, {1024, 1024, 1024}};

// "kernel_coopmat__m5n7k33": the variant's conformance row, then the shape.
std::string fragmentMatmulName(const ::testing::TestParamInfo<std::tuple<MatmulVariant, std::size_t>>& info) {
  const Shape3& s = kFragmentShapes[std::get<1>(info.param)];
  return variantTestName(std::get<0>(info.param)) + "__m" + std::to_string(std::get<0>(s)) + "n" +
         std::to_string(std::get<1>(s)) + "k" + std::to_string(std::get<2>(s));
}

class FragmentMatmul : public VkattnTest,
                       public ::testing::WithParamInterface<std::tuple<MatmulVariant, std::size_t>> {};

INSTANTIATE_TEST_SUITE_P(Kernels, FragmentMatmul,
                         ::testing::Combine(::testing::Values(MatmulVariant::Coopmat, MatmulVariant::CoopmatEmulated,
                                                              MatmulVariant::Coopmat2Workgroup),
                                            ::testing::Range(std::size_t{0}, std::size(kFragmentShapes))),
                         fragmentMatmulName);

TEST_P(FragmentMatmul, CooperativeMatrixKernel) {
  // Named copies, not structured bindings: lambdas capture them (C++20 as clang 14 implements it).
  const MatmulVariant variant = std::get<0>(GetParam());
  const std::size_t shapeIndex = std::get<1>(GetParam());
  const auto opts = [variant](Activation act = Activation::None) {
    return LinearOptions{.activation = act, .variant = variant};
  };
  if (variant == MatmulVariant::CoopmatEmulated && !emulatedFragmentsRun(ctx()))
    GTEST_SKIP() << "the emulated fragments need fixed 8-lane subgroups with shuffles";
  const bool onMatrixUnits = variant == MatmulVariant::Coopmat || variant == MatmulVariant::Coopmat2Workgroup;
  const bool runs = variant == MatmulVariant::Coopmat             ? ctx().info().cooperativeMatrixF16
                    : variant == MatmulVariant::Coopmat2Workgroup ? coopmat2WorkgroupChoiceFor(ctx().info()).usable
                                                                  : true;
  if (!runs) {
    // One case checks the refusal; the other shapes did not run, and say so.
    if (shapeIndex != 0)
      GTEST_SKIP() << "the " << toString(variant) << " kernel cannot run on " << ctx().info().name
                   << " (the first shape checks the refusal)";
    Tensor x = ctx().tensor({4, 16}, randomValues(64, 1), DType::F16),
           w = ctx().tensor({8, 16}, randomValues(128, 2), DType::F16);
    try {
      linear(ctx(), x, w, opts());
      ADD_FAILURE() << "the cooperative-matrix kernel ran on a device without it";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("cooperative-matrix"), std::string::npos) << e.what();
    }
    return;
  }
  if (onMatrixUnits && shapeIndex == 0) {
    Tensor fx = ctx().tensor({4, 16}, randomValues(64, 1)), fw = ctx().tensor({8, 16}, randomValues(128, 2));
    EXPECT_THROW(linear(ctx(), fx, fw, opts()), Unsupported);  // f16 operands only
  }
  const auto [m, n, k] = kFragmentShapes[shapeIndex];
  const uint64_t seed = 900 + 10 * shapeIndex;
  const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
  auto x = roundToHalf(randomValues(M * K, seed)), w = roundToHalf(randomValues(N * K, seed + 1));
  auto b = roundToHalf(randomValues(N, seed + 2)), r = roundToHalf(randomValues(M * N, seed + 3));
  Tensor tx = ctx().tensor({m, k}, x, DType::F16), tw = ctx().tensor({n, k}, w, DType::F16);
  Tensor tb = ctx().tensor({n}, b, DType::F16), tr = ctx().tensor({m, n}, r, DType::F16);
  for (Activation act : kActivations) {
    SCOPED_TRACE(toString(act));
    LinearOptions o = opts(act);
    o.bias = tb.view();
    o.residual = tr.view();
    EXPECT_TRUE(dotClose(linear(ctx(), tx, tw, o).download(), linearRef(x, w, M, N, K, &b, act, &r), kAtolF16, kRtolF16,
                         kDotF16));
  }
  // B as [K, N], batched.
  Tensor a3 = ctx().tensor({1, m, k}, x, DType::F16), bkn = ctx().tensor({1, k, n}, w, DType::F16);
  EXPECT_TRUE(dotClose(matmul(ctx(), a3, bkn, {.alpha = 0.5f, .variant = variant}).download(),
                       matmulRef(x, w, 1, M, N, K, false, false, 0.5), kAtolF16, kRtolF16, kDotF16));
}

INSTANTIATE_TEST_SUITE_P(Variants, LinearTest,
                         ::testing::Values(MatmulVariant::Rows, MatmulVariant::Tiled, MatmulVariant::Naive,
                                           MatmulVariant::CoopmatEmulated, MatmulVariant::Matvec),
                         [](const auto& info) { return variantTestName(info.param); });

TEST_F(VkattnTest, MatmulVariantFollowsTheProfileAndTheEnvironment) {
  ::unsetenv("VKATTN_MATMUL_VARIANT");
  EXPECT_EQ(resolveMatmulVariant(ctx()),
            ctx().profile() == KernelProfile::CpuDriver ? MatmulVariant::Rows : MatmulVariant::Tiled);
  ::setenv("VKATTN_MATMUL_VARIANT", "tiled", 1);
  EXPECT_EQ(resolveMatmulVariant(ctx()), MatmulVariant::Tiled);
  EXPECT_EQ(resolveMatmulVariant(ctx(), MatmulVariant::Naive), MatmulVariant::Naive);
  EXPECT_EQ(resolveMatmulVariant(ctx(), MatmulVariant::Coopmat), MatmulVariant::Coopmat);
  ::setenv("VKATTN_MATMUL_VARIANT", "coopmat-emulated", 1);
  EXPECT_EQ(resolveMatmulVariant(ctx()), MatmulVariant::CoopmatEmulated);
  ::setenv("VKATTN_MATMUL_VARIANT", "fastest", 1);
  EXPECT_THROW(resolveMatmulVariant(ctx()), InvalidArgument);
  ::unsetenv("VKATTN_MATMUL_VARIANT");
  EXPECT_EQ(activationFromString("gelu_tanh"), Activation::GeluTanh);
  EXPECT_THROW(activationFromString("tanh"), InvalidArgument);
}

}  // namespace
}  // namespace vkattn::test
