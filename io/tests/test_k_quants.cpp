// The K-quant encoders (Q4_K, Q5_K, Q6_K in core/storage_formats): round trips through ggml's
// decoding rules stay inside the documented bound (base/src/k_quant_blocks.hpp) on
// random and adversarial super-blocks, their RMS errors rank as the bit widths say against
// Q4_0 and Q8_0 on the same data, and bad input is refused. gguf_crosscheck.py decodes the
// same encoders' bytes with gguf-py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/io/ggml_quant.hpp"

namespace vkattn {
namespace {

constexpr int kSuper = 256;

std::vector<float> roundTrip(DType dtype, const std::vector<float>& x) {
  return decodeValues(dtype, encodeValues(dtype, x), static_cast<int64_t>(x.size()));
}

// The documented bound for one super-block (k_quant_blocks.hpp) with a relative float slack.
double boundFor(DType dtype, const float* x) {
  double lo = 0.0, hi = 0.0, amax = 0.0;
  for (int i = 0; i < kSuper; ++i) {
    lo = std::min(lo, double{x[i]});
    hi = std::max(hi, double{x[i]});
    amax = std::max(amax, std::fabs(double{x[i]}));
  }
  const double slack = 1.0 + 1.0 / 512;           // f16 factors rounded up by at most one f16 step
  const double subnormal = std::ldexp(1.0, -24);  // ... or by f16's subnormal step
  if (dtype == DType::Q6_K) return (1.0 + 1.0 / 127) * amax / 62 * slack + 1e-6 * amax + subnormal;
  const double levels = dtype == DType::Q4_K ? 15 : 31;
  const double range = hi - lo;
  return (1.0 + 1.0 / 63) * (1.0 + 1.0 / 63) * range / (2 * levels) * slack + 1e-6 * range + subnormal;
}

// Super-blocks that stress the encoder: constant (positive, negative, zero), one outlier, one sign
// only, tiny and large magnitudes, sub-blocks of very different ranges, and random ones.
std::vector<std::vector<float>> testBlocks() {
  std::mt19937 rng(20260611);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::vector<float>> blocks;
  auto add = [&](auto element) {
    std::vector<float> b(kSuper);
    for (int i = 0; i < kSuper; ++i) b[i] = element(i);
    blocks.push_back(std::move(b));
  };
  add([](int) { return 0.0f; });
  add([](int) { return 3.25f; });
  add([](int) { return -0.7f; });
  add([&](int i) { return i == 77 ? 1000.0f : 0.01f * normal(rng); });
  add([&](int i) { return i == 200 ? -500.0f : normal(rng); });
  add([&](int) { return -std::fabs(normal(rng)) - 2.0f; });
  add([&](int) { return std::fabs(normal(rng)) + 5.0f; });
  add([&](int) { return 1e-6f * normal(rng); });
  add([&](int) { return 3e4f * normal(rng); });
  add([&](int i) { return (i < 32 ? 100.0f : 1e-3f) * normal(rng); });
  add([&](int i) { return (i / 16 % 2 ? -1.0f : 1.0f) * std::fabs(normal(rng)) * static_cast<float>(1 + i / 16); });
  for (int r = 0; r < 20; ++r) add([&](int) { return normal(rng) * 0.1f + 0.05f; });
  return blocks;
}

TEST(KQuants, RoundTripsStayWithinTheDocumentedBound) {
  const std::vector<std::vector<float>> blocks = testBlocks();
  for (DType dtype : {DType::Q4_K, DType::Q5_K, DType::Q6_K}) {
    double worstRatio = 0.0;
    std::size_t worstBlock = 0;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const std::vector<float>& x = blocks[b];
      const std::vector<float> y = roundTrip(dtype, x);
      const double bound = boundFor(dtype, x.data());
      for (int i = 0; i < kSuper; ++i) {
        const double error = std::fabs(double{y[i]} - x[i]);
        ASSERT_LE(error, bound) << toString(dtype) << " block " << b << " element " << i << ": " << x[i] << " -> "
                                << y[i];
        if (bound > 0 && error / bound > worstRatio) worstRatio = error / bound, worstBlock = b;
      }
      if (bound == 0.0) {  // all zero: exactly zero back
        for (float v : y) ASSERT_EQ(v, 0.0f) << toString(dtype);
      }
    }
    std::cout << toString(dtype) << ": worst error " << worstRatio << " of the bound (block " << worstBlock << ")\n";
  }
}

// On the same Gaussian data the errors order as the bits per weight do: Q4_K (4.5 bits, sub-block
// mins) is no worse than Q4_0 (4.5 bits), Q5_K at least halves Q4_K's error, and Q6_K (6.56 bits)
// lies between Q5_K and Q8_0.
TEST(KQuants, RmsErrorsRankLikeTheirBitWidths) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(64 * kSuper);
  for (float& v : x) v = normal(rng);
  auto rms = [&](DType dtype) {
    const std::vector<float> y = roundTrip(dtype, x);
    double sum = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) sum += (double{y[i]} - x[i]) * (double{y[i]} - x[i]);
    return std::sqrt(sum / static_cast<double>(x.size()));
  };
  const double q4_0 = rms(DType::Q4_0), q8_0 = rms(DType::Q8_0);
  const double q4_k = rms(DType::Q4_K), q5_k = rms(DType::Q5_K), q6_k = rms(DType::Q6_K);
  std::cout << "RMS error on N(0, 1): q4_0 " << q4_0 << ", q4_k " << q4_k << ", q5_k " << q5_k << ", q6_k " << q6_k
            << ", q8_0 " << q8_0 << "\n";
  EXPECT_LE(q4_k, q4_0);
  EXPECT_LE(q5_k, 0.5 * q4_k);
  EXPECT_LT(q6_k, q5_k);
  EXPECT_GT(q6_k, q8_0);
}

TEST(KQuants, LayoutsAndBadInput) {
  EXPECT_EQ(blockElements(DType::Q4_K), 256);
  EXPECT_EQ(blockBytes(DType::Q4_K), 144u);
  EXPECT_EQ(blockBytes(DType::Q5_K), 176u);
  EXPECT_EQ(blockBytes(DType::Q6_K), 210u);
  EXPECT_EQ(storageBytes(DType::Q6_K, 512), 420u);
  for (DType dtype : {DType::Q4_K, DType::Q5_K, DType::Q6_K}) {
    EXPECT_TRUE(isWeightFormat(dtype));
    EXPECT_FALSE(isKvStorageFormat(dtype));
    EXPECT_THROW(encodeValues(dtype, std::vector<float>(128)), InvalidArgument);
    std::vector<float> bad(kSuper, 1.0f);
    bad[9] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(encodeValues(dtype, bad), InvalidArgument);
    bad[9] = std::numeric_limits<float>::infinity();
    EXPECT_THROW(encodeValues(dtype, bad), InvalidArgument);
    bad[9] = 1e12f;  // the f16 factors overflow
    EXPECT_THROW(encodeValues(dtype, bad), InvalidArgument);
    EXPECT_THROW(decodeValues(dtype, std::vector<std::byte>(blockBytes(dtype) - 2), 256), InvalidArgument);
  }
}

// io's quantizeGgml is the same encoder: identical bytes.
TEST(KQuants, GgmlQuantizeIsTheStorageEncoder) {
  const std::vector<std::vector<float>> blocks = testBlocks();
  const std::vector<float>& x = blocks.back();
  for (auto [type, dtype] : {std::pair{GgmlType::Q4_K, DType::Q4_K}, std::pair{GgmlType::Q5_K, DType::Q5_K},
                             std::pair{GgmlType::Q6_K, DType::Q6_K}}) {
    EXPECT_TRUE(ggmlCanQuantize(type));
    const std::vector<uint8_t> ggml = quantizeGgml(type, x);
    const std::vector<std::byte> ours = encodeValues(dtype, x);
    ASSERT_EQ(ggml.size(), ours.size());
    EXPECT_TRUE(std::equal(ggml.begin(), ggml.end(), ours.begin(),
                           [](uint8_t a, std::byte b) { return a == static_cast<uint8_t>(b); }));
  }
}

}  // namespace
}  // namespace vkattn
