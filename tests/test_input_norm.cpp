// linear() and gatedLinear() with an inputNorm (x normalized by RMSNorm before the product, a
// decoder's pre-norm) against a double reference: rmsNorm of x in double, then the product over
// the host-decoded weights. The matrix-vector weight kernel normalizes as it loads (block formats
// and f16 weights under f32 x, one row or a few, chunks of 8 on CPU drivers, the GPU profile's
// subgroups meeting in shared memory, rows of x with a stride); every other kernel (f32 weights,
// the tiled kernel, the integer-dot kernel) gets a normalized copy of x first. NaN in the norm's
// weight and bad arguments are named.
// Tolerance: the product's (test_quantized_linear.cpp: 1e-6 + 1e-6 |y| + 1e-5 sum_k |x_norm w|);
// the gated products' carried through the gate (reference::gatedRef).
#include <limits>
#include <string>
#include <vector>

#include "support/dot_compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

constexpr double kAtol = 1e-6, kRtol = 1e-6, kDotRtol = 1e-5;
constexpr float kEps = 1e-5f;

// A weight [N, K] uploaded in `format` (f32 as is), and the floats it decodes to.
struct Weight {
  Tensor tensor;
  std::vector<float> decoded;
};

Weight weight(Context& ctx, DType format, int64_t n, int64_t k, uint64_t seed) {
  const std::vector<float> values = randomValues(static_cast<std::size_t>(n * k), seed);
  if (format == DType::F32) return {ctx.tensor({n, k}, values), values};
  const std::vector<std::byte> bytes = encodeValues(format, values);
  Weight w{ctx.tensor({n, k}, format), decodeValues(format, bytes, n * k)};
  w.tensor.uploadBytes(bytes.data(), bytes.size());
  return w;
}

// RMSNorm of each K-long row of x in double, rounded to float for the product's reference (a
// rounding far inside the product's tolerance).
std::vector<float> normalizedRef(const std::vector<float>& x, int64_t k, const std::vector<float>& g) {
  const std::vector<double> d = rmsNormRef(x, static_cast<std::size_t>(k), &g, kEps);
  return {d.begin(), d.end()};
}

// K: two of the format's units (the kernels' step along K).
int64_t twoUnits(DType format) {
  return format == DType::F16 || format == DType::F32 ? 64 : 2 * blockElements(format);
}

class InputNorm : public VkattnTest, public ::testing::WithParamInterface<DType> {
 protected:
  DType format() const { return GetParam(); }
};

// One row (a decoded token), a few, and past one dispatch's 8; plain, and with bias, SiLU and a
// residual; x as rows of a wider tensor (a stride past K).
TEST_P(InputNorm, LinearMatchesNormThenProduct) {
  const int64_t k = twoUnits(format()), n = 33;
  const Weight w = weight(ctx(), format(), n, k, 10);
  const std::vector<float> g = randomValues(static_cast<std::size_t>(k), 11, -1.5f, 1.5f);
  const auto b = randomValues(static_cast<std::size_t>(n), 12, -2.0f, 2.0f);
  Tensor tg = ctx().tensor({k}, g), tb = ctx().tensor({n}, b);
  const InputRmsNorm norm{.weight = tg.view(), .eps = kEps};
  for (int64_t m : {int64_t{1}, int64_t{3}, int64_t{11}}) {
    SCOPED_TRACE("M=" + std::to_string(m));
    const auto M = static_cast<std::size_t>(m);
    const auto x = randomValues(M * static_cast<std::size_t>(k), 13 + M, -3.0f, 3.0f);
    const auto r = randomValues(M * static_cast<std::size_t>(n), 14 + M);
    const std::vector<float> xn = normalizedRef(x, k, g);
    Tensor tx = ctx().tensor({m, k}, x);
    EXPECT_TRUE(dotClose(linear(ctx(), tx, w.tensor, {.inputNorm = norm}).download(),
                         linearRef(xn, w.decoded, M, n, k, nullptr, Activation::None, nullptr), kAtol, kRtol,
                         kDotRtol));
    Tensor tr = ctx().tensor({m, n}, r);
    const LinearOptions all{
        .bias = tb.view(), .activation = Activation::Silu, .residual = tr.view(), .inputNorm = norm};
    EXPECT_TRUE(dotClose(linear(ctx(), tx, w.tensor, all).download(),
                         linearRef(xn, w.decoded, M, n, k, &b, Activation::Silu, &r), kAtol, kRtol, kDotRtol));
    // The same rows inside a tensor 32 columns wider: the matrix-vector kernel reads them where they
    // are; the normalized copy (rmsNorm) needs x contiguous from its buffer's start.
    std::vector<float> wide(M * static_cast<std::size_t>(k + 32), 7.0f);
    for (std::size_t i = 0; i < M; ++i)
      std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(i * k), k,
                  wide.begin() + static_cast<std::ptrdiff_t>(i * (k + 32)));
    Tensor tw = ctx().tensor({m, k + 32}, wide);
    const TensorView rows = tw.view().sliced(1, 0, k);
    if (normalizesInProduct(ctx(), rows, w.tensor))
      EXPECT_TRUE(dotClose(linear(ctx(), rows, w.tensor, {.inputNorm = norm}).download(),
                           linearRef(xn, w.decoded, M, n, k, nullptr, Activation::None, nullptr), kAtol, kRtol,
                           kDotRtol));
    else
      EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), rows, w.tensor, {.inputNorm = norm}); }), "x");
  }
}

// gatedLinear(): both products and the gate over the normalized x.
TEST_P(InputNorm, GatedMatchesNormThenProducts) {
  const int64_t k = twoUnits(format()), f = 17;
  const Weight w = weight(ctx(), format(), 2 * f, k, 20);
  const std::vector<float> g = randomValues(static_cast<std::size_t>(k), 21, -1.5f, 1.5f);
  Tensor tg = ctx().tensor({k}, g);
  for (int64_t m : {int64_t{1}, int64_t{11}}) {
    SCOPED_TRACE("M=" + std::to_string(m));
    const auto M = static_cast<std::size_t>(m), F = static_cast<std::size_t>(f), K = static_cast<std::size_t>(k);
    const auto x = randomValues(M * K, 22 + M, -3.0f, 3.0f);
    const std::vector<float> xn = normalizedRef(x, k, g);
    Tensor y = ctx().tensor({m, f}, DType::F32);
    gatedLinear(ctx(), ctx().tensor({m, k}, x), w.tensor, y,
                {.activation = Activation::GeluTanh, .inputNorm = InputRmsNorm{.weight = tg.view(), .eps = kEps}});
    const std::vector<float> gateRows(w.decoded.begin(), w.decoded.begin() + static_cast<std::ptrdiff_t>(F * K));
    const std::vector<float> upRows(w.decoded.begin() + static_cast<std::ptrdiff_t>(F * K), w.decoded.end());
    const MatmulRef ref = gatedRef(linearRef(xn, gateRows, M, F, K, nullptr, Activation::None, nullptr),
                                   linearRef(xn, upRows, M, F, K, nullptr, Activation::None, nullptr),
                                   Activation::GeluTanh, kAtol, kRtol, kDotRtol);
    EXPECT_TRUE(dotClose(y.download(), ref, 0.0, 0.0, 0.0));
  }
}

// Where it folds, and that a NaN in the norm's weight is named.
TEST_P(InputNorm, FoldsIntoTheMatrixVectorKernelOnly) {
  const int64_t k = twoUnits(format());
  const Weight w = weight(ctx(), format(), 9, k, 30);
  Tensor one = ctx().tensor({1, k}, randomValues(static_cast<std::size_t>(k), 31));
  const bool weightKernel = format() != DType::F32;
  EXPECT_EQ(normalizesInProduct(ctx(), one, w.tensor), weightKernel);
  EXPECT_FALSE(normalizesInProduct(ctx(), one, w.tensor, WeightKernel::Tiled));
  EXPECT_FALSE(normalizesInProduct(ctx(), one, w.tensor, WeightKernel::MatvecInt8) && format() != DType::F16);
  std::vector<float> g = randomValues(static_cast<std::size_t>(k), 32);
  g[5] = std::numeric_limits<float>::quiet_NaN();
  Tensor tg = ctx().tensor({k}, g);
  EXPECT_EQ(invalidArgumentOf([&] {
              linear(ctx(), one, w.tensor, {.inputNorm = InputRmsNorm{tg.view(), kEps}});
            }),
            "inputNorm.weight");
}

INSTANTIATE_TEST_SUITE_P(Weights, InputNorm, ::testing::Values(DType::Q4_K, DType::Q8_0, DType::F16, DType::F32),
                         [](const ::testing::TestParamInfo<DType>& info) { return toString(info.param); });

// The GPU profile's kernel shape (subgroups whose sums of x^2 meet in shared memory), and its tiled
// kernel for a prompt (the normalized copy).
TEST_F(VkattnTest, InputNormOnTheGpuProfile) {
  Context gpu({.profile = KernelProfile::Gpu});
  const int64_t k = 64, n = 33;
  const Weight w = weight(gpu, DType::Q8_0, n, k, 40);
  const std::vector<float> g = randomValues(static_cast<std::size_t>(k), 41, -1.5f, 1.5f);
  Tensor tg = gpu.tensor({k}, g);
  for (int64_t m : {int64_t{3}, int64_t{37}}) {
    SCOPED_TRACE("M=" + std::to_string(m));
    const auto M = static_cast<std::size_t>(m);
    const auto x = randomValues(M * static_cast<std::size_t>(k), 42, -3.0f, 3.0f);
    EXPECT_EQ(normalizesInProduct(gpu, gpu.tensor({m, k}, x), w.tensor), m == 3);
    const Tensor y = linear(gpu, gpu.tensor({m, k}, x), w.tensor, {.inputNorm = InputRmsNorm{tg.view(), kEps}});
    EXPECT_TRUE(dotClose(y.download(),
                         linearRef(normalizedRef(x, k, g), w.decoded, M, n, k, nullptr, Activation::None, nullptr),
                         kAtol, kRtol, kDotRtol));
  }
}

// The integer-dot kernel (x rounded to 8 bits, so its own tolerance) takes a normalized copy.
TEST_F(VkattnTest, InputNormBeforeTheIntegerDotKernel) {
  if (!ctx().info().integerDotProduct) GTEST_SKIP() << ctx().info().name << " lacks shaderIntegerDotProduct";
  const int64_t k = 64, n = 20, m = 2;
  const Weight w = weight(ctx(), DType::Q8_0, n, k, 50);
  const std::vector<float> g = randomValues(static_cast<std::size_t>(k), 51, -1.5f, 1.5f);
  const auto x = randomValues(static_cast<std::size_t>(m * k), 52, -3.0f, 3.0f);
  const std::vector<float> xn = normalizedRef(x, k, g);
  MatmulRef ref = linearRef(xn, w.decoded, m, n, k, nullptr, Activation::None, nullptr);
  addXRounding8Bit(ref, xn, w.decoded, m, n, k);
  Tensor tg = ctx().tensor({k}, g);
  const Tensor y = linear(ctx(), ctx().tensor({m, k}, x), w.tensor,
                          {.weightKernel = WeightKernel::MatvecInt8, .inputNorm = InputRmsNorm{tg.view(), kEps}});
  EXPECT_TRUE(dotClose(y.download(), ref, kAtol, kRtol, kDotRtol));
}

// A decoded token's pre-norm and product are one dispatch: no RMSNorm pipeline is built.
TEST_F(VkattnTest, InputNormDecodeIsOneDispatch) {
  Context fresh;
  const Weight w = weight(fresh, DType::Q4_K, 16, 256, 60);
  Tensor g = fresh.tensor({256}, randomValues(256, 61));
  linear(fresh, fresh.tensor({1, 256}, randomValues(256, 62)), w.tensor, {.inputNorm = InputRmsNorm{g.view(), kEps}});
  const auto pipelines = fresh.pipelines().all();
  ASSERT_EQ(pipelines.size(), 1u);
  EXPECT_EQ(pipelines[0]->name().rfind("linear_q_matvec", 0), 0u) << pipelines[0]->name();
}

TEST_F(VkattnTest, InputNormBadArgumentsAreNamed) {
  const Weight w = weight(ctx(), DType::Q8_0, 8, 64, 70);
  Tensor x = ctx().tensor({2, 64}, randomValues(128, 71));
  Tensor g = ctx().tensor({64}, randomValues(64, 72)), longer = ctx().tensor({65}, randomValues(65, 73));
  Tensor half = ctx().tensor({64}, DType::F16);
  const auto run = [&](const InputRmsNorm& norm) { linear(ctx(), x, w.tensor, {.inputNorm = norm}); };
  EXPECT_EQ(invalidArgumentOf([&] { run({longer.view(), kEps}); }), "inputNorm.weight");
  EXPECT_EQ(invalidArgumentOf([&] { run({half.view(), kEps}); }), "inputNorm.weight");
  EXPECT_EQ(invalidArgumentOf([&] { run({TensorView{}, kEps}); }), "inputNorm.weight");
  EXPECT_EQ(invalidArgumentOf([&] { run({g.view(), -1.0f}); }), "inputNorm.eps");
  EXPECT_EQ(invalidArgumentOf([&] { run({g.view(), std::numeric_limits<float>::quiet_NaN()}); }), "inputNorm.eps");
  Tensor y = ctx().tensor({2, 4}, DType::F32);
  EXPECT_EQ(invalidArgumentOf([&] {
              gatedLinear(ctx(), x, w.tensor, y, {.inputNorm = InputRmsNorm{longer.view(), kEps}});
            }),
            "inputNorm.weight");
}

}  // namespace
}  // namespace vkattn::test
