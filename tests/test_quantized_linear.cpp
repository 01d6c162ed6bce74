// linear() with weights in ggml's block formats (Q8_0, Q4_0, Q4_K, Q5_K, Q6_K) and f16 weights
// under f32 x (the same kernels; with f16 x the float kernels, test_linear.cpp), against a double
// reference over the host-decoded weights (core/storage_formats' decodeValues, which gguf-py
// cross-checks): both kernels (matrix-vector for up to 8 rows of x and in chunks of 8 beyond,
// tiled for prompts and for few rows), odd N, K of one, two and several blocks, rows that start 2 bytes off a
// 4-byte word, a weight view that starts at a later row, bias, SiLU, residual, f16 x/y, the GPU
// profile's kernel shapes, the integer-dot kernel (x in 8 bits); NaN reports and bad arguments
// named in the error.
// Tolerance (the kernels' headers): |y - ref| <= 1e-6 + 1e-6 |ref| + 1e-5 sum_k |x w| for f32 x/y;
// f16 x/y add the f16 rounding of y (the project's f16 linear tolerance).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "support/dot_compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/half.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

constexpr double kAtol = 1e-6, kRtol = 1e-6, kDotRtol = 1e-5;
// The block formats, and f16 weights (under f32 x these kernels read them; K a multiple of 32).
constexpr DType kFormats[] = {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::F16};

// A weight [N, K] uploaded as `format`'s blocks, and the floats those blocks decode to.
struct BlockWeight {
  Tensor tensor;
  std::vector<float> decoded;
};

BlockWeight blockWeight(Context& ctx, DType format, int64_t n, int64_t k, uint64_t seed) {
  const std::vector<float> values = randomValues(static_cast<std::size_t>(n * k), seed);
  const std::vector<std::byte> bytes = encodeValues(format, values);
  BlockWeight w{ctx.tensor({n, k}, format), decodeValues(format, bytes, n * k)};
  w.tensor.uploadBytes(bytes.data(), bytes.size());
  return w;
}

struct Case {
  int64_t m, n, blocks;  // K = blocks * the format's block
};

class QuantizedLinear : public VkattnTest, public ::testing::WithParamInterface<DType> {
 protected:
  void TearDown() override {
    if (m_compared)
      std::cout << toString(format()) << ": worst error " << m_worst.worstRatio << " of the tolerance, max |y - ref| "
                << m_worst.maxAbs << " (" << m_worstCase << ")\n";
    VkattnTest::TearDown();
  }
  DType format() const { return GetParam(); }
  // The step K comes in: a block, or 32 f16 weights.
  int64_t block() const { return format() == DType::F16 ? 32 : blockElements(format()); }
  // Every output of y = act(x W^T + b) + r, plain and with bias, SiLU and residual.
  void check(const Case& c, WeightKernel kernel, uint64_t seed);
  // dotClose at the f32 tolerance, remembering the worst case for the report.
  void expectClose(const std::vector<float>& got, const MatmulRef& ref, const std::string& label) {
    EXPECT_TRUE(dotClose(got, ref, kAtol, kRtol, kDotRtol)) << label;
    const ErrorStats s = compareDot(got, ref, kAtol, kRtol, kDotRtol);
    if (!m_compared || s.worstRatio > m_worst.worstRatio) m_worst = s, m_worstCase = label;
    m_compared = true;
  }

 private:
  bool m_compared = false;
  ErrorStats m_worst;
  std::string m_worstCase;
};

void QuantizedLinear::check(const Case& c, WeightKernel kernel, uint64_t seed) {
  const int64_t k = c.blocks * block();
  const std::string label = "M=" + std::to_string(c.m) + " N=" + std::to_string(c.n) + " K=" + std::to_string(k) +
                            " kernel " + toString(kernel);
  const auto M = static_cast<std::size_t>(c.m), N = static_cast<std::size_t>(c.n), K = static_cast<std::size_t>(k);
  const BlockWeight w = blockWeight(ctx(), format(), c.n, k, seed);
  const auto x = randomValues(M * K, seed + 1), b = randomValues(N, seed + 2, -2.0f, 2.0f);
  const auto r = randomValues(M * N, seed + 3);
  Tensor tx = ctx().tensor({c.m, k}, x), tb = ctx().tensor({c.n}, b), tr = ctx().tensor({c.m, c.n}, r);
  expectClose(linear(ctx(), tx, w.tensor, {.weightKernel = kernel}).download(),
              linearRef(x, w.decoded, M, N, K, nullptr, Activation::None, nullptr), label);
  Tensor y = linear(ctx(), tx, w.tensor,
                    {.bias = tb.view(), .activation = Activation::Silu, .residual = tr.view(), .weightKernel = kernel});
  expectClose(y.download(), linearRef(x, w.decoded, M, N, K, &b, Activation::Silu, &r), label + " bias silu residual");
}

// Decode shapes (the matrix-vector kernel): one row of x or a few, one output or a thousand.
TEST_P(QuantizedLinear, MatrixVector) {
  for (const Case& c : {Case{1, 1, 1}, Case{3, 7, 2}, Case{8, 33, 5}, Case{1, 1000, 5}, Case{3, 1000, 1}})
    check(c, WeightKernel::Auto, 100 + static_cast<uint64_t>(c.m * 7 + c.n));
}

// Prompt shapes on the tiled kernel (Auto's choice on GPUs): partial tiles on both sides.
TEST_P(QuantizedLinear, Tiled) {
  for (const Case& c : {Case{37, 33, 5}, Case{128, 7, 2}, Case{37, 1000, 1}, Case{128, 1000, 2}})
    check(c, WeightKernel::Tiled, 200 + static_cast<uint64_t>(c.m * 7 + c.n));
}

// Prompt shapes through Auto (the matrix-vector kernel on CPU drivers, in dispatches of up to 8
// rows).
TEST_P(QuantizedLinear, AutoOnPrompts) {
  check({37, 33, 2}, WeightKernel::Auto, 300);
  check({128, 7, 1}, WeightKernel::Auto, 301);
}

// Prompt shapes with the weights decoded into scratch first, then the float product (Dequantized;
// f16 weights take the tiled kernel).
TEST_P(QuantizedLinear, Dequantized) {
  check({37, 33, 5}, WeightKernel::Dequantized, 500);
}

// f16 x on decoded weights: the float product of f16 operands, Auto's and, where the device has
// matrix units, the cooperative-matrix kernel (Mesa 26's lavapipe in CI). The weights are decoded to f16, so the
// reference takes them rounded to half; the f16 linear tolerance.
TEST_P(QuantizedLinear, DequantizedUnderF16Activations) {
  if (format() == DType::F16) GTEST_SKIP() << "f16 weights under f16 x take the float kernels";
  const int64_t m = 70, n = 48, k = 2 * block();
  const BlockWeight w = blockWeight(ctx(), format(), n, k, 510);
  const auto x = roundToHalf(randomValues(static_cast<std::size_t>(m * k), 511));
  const Tolerance half = toleranceFor(Checked::Linear, DType::F16);
  const MatmulRef ref = linearRef(x, roundToHalf(w.decoded), m, n, k, nullptr, Activation::None, nullptr);
  const Tensor hx = ctx().tensor({m, k}, x, DType::F16);
  // Auto's float product, and the cooperative-matrix one where the device has matrix units.
  std::vector<MatmulVariant> variants{MatmulVariant::Auto};
  if (ctx().info().cooperativeMatrixF16) variants.push_back(MatmulVariant::Coopmat);
  for (MatmulVariant variant : variants) {
    const Tensor y = linear(ctx(), hx, w.tensor, {.variant = variant, .weightKernel = WeightKernel::Dequantized});
    EXPECT_TRUE(dotClose(y.download(), ref, half.atol, half.rtol, half.dotRtol)) << toString(variant);
  }
}

// The tiled kernel on 3 rows.
TEST_P(QuantizedLinear, TiledOnFewRows) {
  check({3, 33, 2}, WeightKernel::Tiled, 302);
}

// A view of rows 3 .. N - 1 of a weight tensor (its first block several rows in), and x / y f16.
TEST_P(QuantizedLinear, WeightViewAndF16Activations) {
  const int64_t n = 40, k = 2 * block(), m = 5;
  const BlockWeight w = blockWeight(ctx(), format(), n, k, 400);
  const TensorView rows = w.tensor.view().sliced(0, 3, n - 3);
  const std::vector<float> decoded(w.decoded.begin() + 3 * k, w.decoded.end());
  const auto x = randomValues(static_cast<std::size_t>(m * k), 401);
  const MatmulRef ref = linearRef(x, decoded, m, n - 3, k, nullptr, Activation::None, nullptr);
  expectClose(linear(ctx(), ctx().tensor({m, k}, x), rows).download(), ref, "a view of rows 3..39");

  const Tolerance half = toleranceFor(Checked::Linear, DType::F16);
  const auto xh = roundToHalf(x);
  for (int64_t rowsOfX : {m, int64_t{37}}) {
    const auto xr = roundToHalf(randomValues(static_cast<std::size_t>(rowsOfX * k), 402));
    Tensor hx = ctx().tensor({rowsOfX, k}, xr, DType::F16);
    EXPECT_TRUE(dotClose(linear(ctx(), hx, rows).download(),
                         linearRef(xr, decoded, rowsOfX, n - 3, k, nullptr, Activation::None, nullptr), half.atol,
                         half.rtol, half.dotRtol));
  }
}

// NaN in a block's scale or in x comes back as InvalidArgument naming the input, from both kernels.
TEST_P(QuantizedLinear, NanInputsAreNamed) {
  const int64_t n = 9, k = 2 * block();
  std::vector<std::byte> bytes = encodeValues(format(), randomValues(static_cast<std::size_t>(n * k), 500));
  const std::size_t scaleAt = format() == DType::Q6_K ? 208 : 0;  // row 4's second block's f16 d
  const uint16_t nan = 0x7e00;
  std::memcpy(bytes.data() + (4 * 2 + 1) * blockBytes(format()) + scaleAt, &nan, 2);
  Tensor w = ctx().tensor({n, k}, format());
  w.uploadBytes(bytes.data(), bytes.size());
  for (int64_t m : {int64_t{2}, int64_t{20}}) {
    SCOPED_TRACE("M=" + std::to_string(m));
    Tensor x = ctx().tensor({m, k}, randomValues(static_cast<std::size_t>(m * k), 501));
    EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, w); }), "weight");
    std::vector<float> xv = randomValues(static_cast<std::size_t>(m * k), 502);
    xv[static_cast<std::size_t>(k + 3)] = std::numeric_limits<float>::quiet_NaN();
    Tensor good = blockWeight(ctx(), format(), n, k, 503).tensor;
    EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), ctx().tensor({m, k}, xv), good); }), "x");
  }
}

// The GPU profile's shapes on this device: the matrix-vector kernel with one column per
// workgroup of several subgroups (their sums meet in shared memory), and Auto's tiled kernel for a
// prompt.
TEST_P(QuantizedLinear, GpuProfileShapes) {
  Context gpu({.profile = KernelProfile::Gpu});
  const int64_t n = 33, k = 2 * block();
  const BlockWeight w = blockWeight(gpu, format(), n, k, 700);
  const auto b = randomValues(static_cast<std::size_t>(n), 701, -2.0f, 2.0f);
  Tensor tb = gpu.tensor({n}, b);
  for (int64_t m : {int64_t{3}, int64_t{37}}) {
    SCOPED_TRACE("M=" + std::to_string(m));
    const auto M = static_cast<std::size_t>(m);
    const auto x = randomValues(M * static_cast<std::size_t>(k), 702), r = randomValues(M * 33, 703);
    Tensor y = linear(gpu, gpu.tensor({m, k}, x), w.tensor,
                      {.bias = tb.view(), .activation = Activation::Silu, .residual = gpu.tensor({m, n}, r).view()});
    expectClose(y.download(), linearRef(x, w.decoded, M, 33, static_cast<std::size_t>(k), &b, Activation::Silu, &r),
                "GPU profile M=" + std::to_string(m));
  }
  EXPECT_EQ(resolveWeightKernel(gpu, 37), WeightKernel::Tiled);
  // VKATTN_PROMPT_WEIGHT_KERNEL: Auto's kernel past 8 rows on GPUs (a prompt), decoded rows left
  // on the matrix-vector kernel and CPU drivers on theirs.
  ::setenv("VKATTN_PROMPT_WEIGHT_KERNEL", "dequantized", 1);
  EXPECT_EQ(resolveWeightKernel(gpu, 37), WeightKernel::Dequantized);  // f16 weights: Tiled (weightKernelFor)
  EXPECT_EQ(resolveWeightKernel(gpu, 8), WeightKernel::Matvec);
  if (ctx().profile() == KernelProfile::CpuDriver) {
    EXPECT_EQ(resolveWeightKernel(ctx(), 37), WeightKernel::Matvec);
  }
  const auto x = randomValues(static_cast<std::size_t>(37 * k), 704);
  expectClose(linear(gpu, gpu.tensor({37, k}, x), w.tensor).download(),
              linearRef(x, w.decoded, 37, 33, static_cast<std::size_t>(k), nullptr, Activation::None, nullptr),
              "GPU profile, VKATTN_PROMPT_WEIGHT_KERNEL=dequantized");
  ::setenv("VKATTN_PROMPT_WEIGHT_KERNEL", "fastest", 1);
  EXPECT_EQ(invalidArgumentOf([&] { resolveWeightKernel(gpu, 37); }), "VKATTN_PROMPT_WEIGHT_KERNEL");
  ::unsetenv("VKATTN_PROMPT_WEIGHT_KERNEL");
}

// A split of the matrix-vector kernel's work that neither profile chooses, forced through
// VKATTN_WEIGHT_MATVEC_TILE: two pieces of a unit per invocation (the GPU profile takes one,
// GpuProfileShapes; the CPU profile a whole unit), three columns per workgroup, two subgroups.
TEST_P(QuantizedLinear, ForcedMatvecTileMatches) {
  const int64_t n = 19, k = 2 * block(), m = 3;
  const BlockWeight w = blockWeight(ctx(), format(), n, k, 710);
  const auto x = randomValues(static_cast<std::size_t>(m * k), 711);
  const MatmulRef expected = linearRef(x, w.decoded, static_cast<std::size_t>(m), static_cast<std::size_t>(n),
                                       static_cast<std::size_t>(k), nullptr, Activation::None, nullptr);
  const uint32_t lanes = std::max<uint32_t>(8, ctx().info().subgroupSize);
  const std::string tile = "2x3x" + std::to_string(2 * lanes);
  ::setenv("VKATTN_WEIGHT_MATVEC_TILE", tile.c_str(), 1);
  Tensor y = linear(ctx(), ctx().tensor({m, k}, x), w.tensor, {.weightKernel = WeightKernel::Matvec});
  expectClose(y.download(), expected, "tile " + tile);
  // A span that does not divide the unit's pieces, and a malformed value, name the variable.
  for (const std::string& bad : {std::to_string(3) + "x1x" + std::to_string(lanes), std::string("1x1")}) {
    ::setenv("VKATTN_WEIGHT_MATVEC_TILE", bad.c_str(), 1);
    EXPECT_EQ(invalidArgumentOf([&] {
                linear(ctx(), ctx().tensor({m, k}, x), w.tensor, {.weightKernel = WeightKernel::Matvec});
              }),
              "VKATTN_WEIGHT_MATVEC_TILE")
        << bad;
  }
  ::unsetenv("VKATTN_WEIGHT_MATVEC_TILE");
}

// The integer-dot matrix-vector kernel (taken only when asked for): x is rounded to 8 bits in blocks of 32, so each
// output may be off by up to x's rounding, sum_k |W[n, k]| max|x[m, block of k]| / 254, on top of the float tolerance.
// f16 weights (no quants) take the float kernel. The GPU profile's shapes, chunks of 8 rows, a
// forced work split with two pieces per invocation and three columns, f16 x and y, NaN reports.
TEST_P(QuantizedLinear, IntegerDotMatrixVector) {
  if (!ctx().info().integerDotProduct) GTEST_SKIP() << ctx().info().name << " has no shaderIntegerDotProduct";
  Context gpu({.profile = KernelProfile::Gpu});  // the shapes GPUs run
  const bool quants = format() != DType::F16;
  double worst = 0.0;
  auto check = [&](int64_t m, int64_t n, int64_t blocks, DType xDtype, uint64_t seed, const std::string& tile) {
    const int64_t k = blocks * block();
    const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
    const std::string label = "M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k) + " x " +
                              toString(xDtype) + (tile.empty() ? "" : " tile " + tile);
    const BlockWeight w = blockWeight(gpu, format(), n, k, seed);
    std::vector<float> x = randomValues(M * K, seed + 1, -2.0f, 2.0f);
    for (std::size_t i = 0; i < x.size(); i += 97) x[i] *= 8.0f;  // blocks of different ranges
    if (xDtype == DType::F16) x = roundToHalf(x);
    const auto b = randomValues(N, seed + 2), r = randomValues(M * N, seed + 3);
    if (!tile.empty()) ::setenv("VKATTN_WEIGHT_MATVEC_TILE", tile.c_str(), 1);
    Tensor tb = gpu.tensor({n}, b, xDtype), tr = gpu.tensor({m, n}, r, xDtype);
    const std::vector<float> y =
        linear(gpu, gpu.tensor({m, k}, x, xDtype), w.tensor,
               {.bias = tb.view(), .residual = tr.view(), .weightKernel = WeightKernel::MatvecInt8})
            .download();
    ::unsetenv("VKATTN_WEIGHT_MATVEC_TILE");
    const std::vector<float> bb = xDtype == DType::F16 ? roundToHalf(b) : b;
    const std::vector<float> rr = xDtype == DType::F16 ? roundToHalf(r) : r;
    MatmulRef ref = linearRef(x, w.decoded, M, N, K, &bb, Activation::None, &rr);
    if (quants) addXRounding8Bit(ref, x, w.decoded, M, N, K);
    const Tolerance f =
        xDtype == DType::F16 ? toleranceFor(Checked::Linear, DType::F16) : Tolerance{kAtol, kRtol, kDotRtol};
    EXPECT_TRUE(dotClose(y, ref, f.atol, f.rtol, f.dotRtol)) << label;
    worst = std::max(worst, compareDot(y, ref, f.atol, f.rtol, f.dotRtol).worstRatio);
  };
  check(1, 1, 1, DType::F32, 800, "");
  check(3, 7, 2, DType::F32, 810, "");
  check(8, 33, 5, DType::F32, 820, "");
  check(1, 300, 9, DType::F32, 830, "");
  check(11, 5, 2, DType::F32, 840, "");  // two chunks of rows
  check(3, 19, 2, DType::F16, 850, "");
  const uint32_t lanes = std::max<uint32_t>(8, gpu.info().subgroupSize);
  check(3, 19, 2, DType::F32, 860, "2x3x" + std::to_string(2 * lanes));
  std::cout << toString(format()) << " integer-dot kernel: worst error " << worst << " of the bound\n";
  if (!quants) return;
  // NaN in x (its block's scale) and in a weight block's scale are named.
  const int64_t n = 9, k = 2 * block();
  std::vector<float> xv = randomValues(static_cast<std::size_t>(2 * k), 870);
  xv[static_cast<std::size_t>(k + 3)] = std::numeric_limits<float>::quiet_NaN();
  const LinearOptions int8{.weightKernel = WeightKernel::MatvecInt8};
  Tensor good = blockWeight(gpu, format(), n, k, 871).tensor;
  EXPECT_EQ(invalidArgumentOf([&] { linear(gpu, gpu.tensor({2, k}, xv), good, int8); }), "x");
  std::vector<std::byte> bytes = encodeValues(format(), randomValues(static_cast<std::size_t>(n * k), 872));
  const std::size_t scaleAt = format() == DType::Q6_K ? 208 : 0;
  const uint16_t nan = 0x7e00;
  std::memcpy(bytes.data() + (4 * 2 + 1) * blockBytes(format()) + scaleAt, &nan, 2);
  Tensor bad = gpu.tensor({n, k}, format());
  bad.uploadBytes(bytes.data(), bytes.size());
  Tensor x = gpu.tensor({2, k}, randomValues(static_cast<std::size_t>(2 * k), 873));
  EXPECT_EQ(invalidArgumentOf([&] { linear(gpu, x, bad, int8); }), "weight");
}

INSTANTIATE_TEST_SUITE_P(Formats, QuantizedLinear, ::testing::ValuesIn(kFormats),
                         [](const ::testing::TestParamInfo<DType>& info) { return std::string(toString(info.param)); });

// The workgroup-scope cooperative-matrix-2 weight kernel (NVIDIA; "kernel_coopmat2_wg", a row of
// its own in `vkattn conformance`). x and the decoded weights are f16 in its products, so the
// reference takes both rounded to half, with the f16 linear tolerance. Where the device cannot run
// it, the first format checks the refusal and the others say why they did not run.
class WorkgroupScopeWeights : public QuantizedLinear {};

TEST_P(WorkgroupScopeWeights, PromptsAgainstTheReference) {
  const Coopmat2WorkgroupChoice choice = coopmat2WorkgroupChoiceFor(ctx().info());
  const bool runs = choice.usable && ctx().info().cooperativeMatrix2.blockLoads && ctx().info().bufferDeviceAddress;
  const WeightKernel kernel = WeightKernel::Coopmat2Workgroup;
  if (!runs) {
    if (format() != kFormats[0])
      GTEST_SKIP() << "the coopmat2-wg weight kernel cannot run on " << ctx().info().name
                   << " (the first format checks the refusal)";
    const BlockWeight w = blockWeight(ctx(), format(), 8, block(), 600);
    Tensor x = ctx().tensor({40, block()}, randomValues(static_cast<std::size_t>(40 * block()), 601));
    try {
      linear(ctx(), x, w.tensor, {.weightKernel = kernel});
      ADD_FAILURE() << "the workgroup-scope weight kernel ran on a device without it";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("workgroup-scope cooperative-matrix-2 weight kernel"), std::string::npos)
          << e.what();
    }
    return;
  }
  const Tolerance half = toleranceFor(Checked::Linear, DType::F16);
  // Edge tiles on both sides, and a tile wholly inside (128 x 128 of 300 x 1000).
  for (const Case& c : {Case{37, 33, 5}, Case{300, 1000, 2}, Case{3, 7, 1}}) {
    const int64_t k = c.blocks * block();
    const auto M = static_cast<std::size_t>(c.m), N = static_cast<std::size_t>(c.n), K = static_cast<std::size_t>(k);
    const BlockWeight w = blockWeight(ctx(), format(), c.n, k, 610 + static_cast<uint64_t>(c.n));
    const auto x = randomValues(M * K, 611), b = randomValues(N, 612, -2.0f, 2.0f), r = randomValues(M * N, 613);
    const auto wh = roundToHalf(w.decoded);
    Tensor tx = ctx().tensor({c.m, k}, x), tb = ctx().tensor({c.n}, b), tr = ctx().tensor({c.m, c.n}, r);
    Tensor y =
        linear(ctx(), tx, w.tensor,
               {.bias = tb.view(), .activation = Activation::Silu, .residual = tr.view(), .weightKernel = kernel});
    EXPECT_TRUE(dotClose(y.download(), linearRef(roundToHalf(x), wh, M, N, K, &b, Activation::Silu, &r), half.atol,
                         half.rtol, half.dotRtol))
        << "M=" << c.m << " N=" << c.n << " K=" << k << " f32 x";
    const auto xh = roundToHalf(x);
    Tensor hy = linear(ctx(), ctx().tensor({c.m, k}, xh, DType::F16), w.tensor, {.weightKernel = kernel});
    EXPECT_TRUE(dotClose(hy.download(), linearRef(xh, wh, M, N, K, nullptr, Activation::None, nullptr), half.atol,
                         half.rtol, half.dotRtol))
        << "M=" << c.m << " N=" << c.n << " K=" << k << " f16 x";
  }
  // A view of whole blocks of columns in rows 2 .. 41 (the layouts' origin away from the buffer's
  // start), x a slice of rows.
  const int64_t k = 3 * block(), n = 44, m = 50;
  const BlockWeight w = blockWeight(ctx(), format(), n, k, 620);
  const TensorView columns = w.tensor.view().sliced(0, 2, 40).sliced(1, block(), 2 * block());
  std::vector<float> decoded;
  for (int64_t row = 2; row < 42; ++row)
    decoded.insert(decoded.end(), w.decoded.begin() + row * k + block(), w.decoded.begin() + row * k + 3 * block());
  const auto x = roundToHalf(randomValues(static_cast<std::size_t>((m + 3) * 2 * block()), 621));
  Tensor tx = ctx().tensor({m + 3, 2 * block()}, x);
  const std::vector<float> rows(x.begin() + 3 * 2 * block(), x.end());
  EXPECT_TRUE(dotClose(linear(ctx(), tx.view().sliced(0, 3, m), columns, {.weightKernel = kernel}).download(),
                       linearRef(rows, roundToHalf(decoded), m, 40, 2 * block(), nullptr, Activation::None, nullptr),
                       half.atol, half.rtol, half.dotRtol))
      << "views";
}

INSTANTIATE_TEST_SUITE_P(Formats, WorkgroupScopeWeights, ::testing::ValuesIn(kFormats),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string("kernel_coopmat2_wg__") + toString(info.param);
                         });

class QuantizedLinearErrors : public VkattnTest {};

TEST_F(QuantizedLinearErrors, BadArgumentsAreNamed) {
  Tensor w = ctx().tensor({4, 64}, randomValues(256, 600), DType::Q8_0);
  Tensor x = ctx().tensor({2, 64}, randomValues(128, 601));
  // K not a multiple of the block: the first 16 columns of each row.
  TensorView narrow = w.view();
  narrow.shape = {4, 16};
  Tensor x16 = ctx().tensor({2, 16}, randomValues(32, 602));
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x16, narrow); }), "weight");
  // Rows that do not start on a block: offset 16.
  TensorView shifted = w.view();
  shifted.shape = {3, 32};
  shifted.offset = 16;
  Tensor x32 = ctx().tensor({2, 32}, randomValues(64, 603));
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x32, shifted); }), "weight");
  // K differing from x's, a weight of rank 1, an i32 or bf16 weight.
  Tensor x128 = ctx().tensor({2, 128}, randomValues(256, 604));
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x128, w); }), "weight");
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, w.view().reshaped({256})); }), "weight");
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, ctx().tensor({4, 64}, DType::I32)); }), "weight");
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, ctx().tensor({4, 64}, DType::BF16)); }), "weight");
  // x, y and bias of the wrong dtype or shape.
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), ctx().tensor({2, 64}, DType::Q8_0), w); }), "x");
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, w, ctx().tensor({2, 5})); }), "y");
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, w, ctx().tensor({2, 4}, DType::F16)); }), "y");
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, w, {.bias = ctx().tensor({5}).view()}); }), "bias");
  // An unknown kernel name in the environment.
  ::setenv("VKATTN_WEIGHT_KERNEL", "fastest", 1);
  EXPECT_EQ(invalidArgumentOf([&] { linear(ctx(), x, w); }), "VKATTN_WEIGHT_KERNEL");
  ::setenv("VKATTN_WEIGHT_KERNEL", "tiled", 1);
  EXPECT_EQ(resolveWeightKernel(ctx(), 1), WeightKernel::Tiled);
  ::unsetenv("VKATTN_WEIGHT_KERNEL");
  EXPECT_EQ(resolveWeightKernel(ctx(), 8), WeightKernel::Matvec);
  const bool cpu = ctx().profile() == KernelProfile::CpuDriver;
  EXPECT_EQ(resolveWeightKernel(ctx(), 9), cpu ? WeightKernel::Matvec : WeightKernel::Tiled);
  EXPECT_EQ(resolveWeightKernel(ctx(), 9, WeightKernel::Tiled), WeightKernel::Tiled);
}

}  // namespace
}  // namespace vkattn::test
