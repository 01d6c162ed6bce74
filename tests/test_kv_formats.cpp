// K/V stored as bf16, Q8_0 and Q4_0: the host encoders and decoders against hand-worked blocks
// and their error bounds, and the rows attention kernel decoding them — against the double
// reference on the decoded values (dense, paged, decode with key splits, GQA, masks, sinks,
// ALiBi; f32 and f16 q), the error against f32 K/V within the documented bounds, and the refusals.
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>

#include "support/attention_check.hpp"
#include "support/compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/half.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

uint16_t u16At(const std::vector<std::byte>& bytes, std::size_t at) {
  uint16_t x;
  std::memcpy(&x, bytes.data() + at, 2);
  return x;
}

std::vector<float> roundTrip(DType dtype, const std::vector<float>& x) {
  return decodeValues(dtype, encodeValues(dtype, x), static_cast<int64_t>(x.size()));
}

TEST(StorageFormats, Bf16RoundsToNearestEven) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBf16(-2.0f), 0xc000);
  EXPECT_EQ(floatToBf16(1.0f + 0x1p-8f), 0x3f80);             // halfway, even below
  EXPECT_EQ(floatToBf16(1.0f + 3 * 0x1p-8f), 0x3f82);         // halfway, even above
  EXPECT_EQ(floatToBf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);  // past halfway
  EXPECT_EQ(floatToBf16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(bf16ToFloat(0x3fc0), 1.5f);
  const auto x = randomValues(4096, 5, -100.0f, 100.0f);
  const auto y = roundTrip(DType::BF16, x);
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_LE(std::fabs(x[i] - y[i]), std::fabs(x[i]) * 0x1p-8f) << i;
}

TEST(StorageFormats, Q8_0BlockLayout) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i - 16);  // max |x| = 16
  const auto bytes = encodeValues(DType::Q8_0, x);
  ASSERT_EQ(bytes.size(), 34u);
  EXPECT_EQ(u16At(bytes, 0), floatToHalf(16.0f / 127.0f));
  EXPECT_EQ(static_cast<int8_t>(bytes[2]), -127);  // -16 * 127 / 16
  EXPECT_EQ(static_cast<int8_t>(bytes[2 + 16]), 0);
  EXPECT_EQ(static_cast<int8_t>(bytes[2 + 31]), 119);  // round(15 * 127 / 16 = 119.06)
  EXPECT_EQ(static_cast<int8_t>(bytes[2 + 24]), 64);   // round(8 * 127 / 16 = 63.5): away from zero
  const auto y = decodeValues(DType::Q8_0, bytes, 32);
  EXPECT_EQ(y[2], halfToFloat(floatToHalf(16.0f / 127.0f)) * -111.0f);  // round(-14 * 127 / 16 = -111.1)
}

TEST(StorageFormats, Q4_0BlockLayout) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i - 16);  // largest magnitude: -16, so d = 2
  const auto bytes = encodeValues(DType::Q4_0, x);
  ASSERT_EQ(bytes.size(), 18u);
  EXPECT_EQ(u16At(bytes, 0), floatToHalf(2.0f));
  // Byte i: element i (low nibble), element i + 16 (high); nibble = min(15, floor(x / 2 + 8.5)).
  EXPECT_EQ(static_cast<uint8_t>(bytes[2]), 0x80);       // -16 -> 0, 0 -> 8
  EXPECT_EQ(static_cast<uint8_t>(bytes[2 + 3]), 0xa2);   // -13 -> 2, 3 -> 10
  EXPECT_EQ(static_cast<uint8_t>(bytes[2 + 15]), 0xf8);  // -1 -> 8, 15 -> 16 clamped to 15
  const auto y = decodeValues(DType::Q4_0, bytes, 32);
  EXPECT_EQ(y[0], -16.0f);
  EXPECT_EQ(y[31], 14.0f);
  EXPECT_EQ(y[19], 4.0f);  // 3 -> nibble 10 -> (10 - 8) * 2
}

TEST(StorageFormats, BlockErrorsStayWithinAStep) {
  // Per block: Q8_0 within half a step d = max|x| / 127, Q4_0 within one step d = max|x| / 8 (the
  // positive end is clamped to 7 steps); plus the scale's f16 rounding (relative 2^-11) times the
  // largest level (127 or 8). Encoding the decoded values again gives the same bytes.
  auto x = randomValues(32 * 64, 9, -3.0f, 3.0f);
  for (int b = 0; b < 64; ++b)  // blocks of very different magnitudes, one all zeros
    for (int i = 0; i < 32; ++i) x[32 * b + i] *= b == 7 ? 0.0f : std::exp2(static_cast<float>(b % 12 - 6));
  for (DType dtype : {DType::Q8_0, DType::Q4_0}) {
    SCOPED_TRACE(toString(dtype));
    const auto y = roundTrip(dtype, x);
    for (int b = 0; b < 64; ++b) {
      float amax = 0.0f;
      for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[32 * b + i]));
      const float step = dtype == DType::Q8_0 ? amax / 127.0f * (0.5f + 127.0f / 2048.0f) * 1.0001f
                                              : amax / 8.0f * (1.0f + 8.0f / 2048.0f) * 1.0001f;
      for (int i = 0; i < 32; ++i) ASSERT_LE(std::fabs(x[32 * b + i] - y[32 * b + i]), step) << b << " " << i;
    }
    EXPECT_EQ(encodeValues(dtype, y), encodeValues(dtype, x));
  }
}

TEST(StorageFormats, PartialBlocksAreRefused) {
  EXPECT_EQ(invalidArgumentOf([] { encodeValues(DType::Q8_0, std::vector<float>(40)); }), "values");
  EXPECT_EQ(invalidArgumentOf([] { decodeValues(DType::Q4_0, std::vector<std::byte>(17), 32); }), "bytes");
  std::vector<float> bad(32, 1.0f);
  bad[5] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(invalidArgumentOf([&] { encodeValues(DType::Q4_0, bad); }), "values");
  bad[5] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(invalidArgumentOf([&] { encodeValues(DType::Q8_0, bad); }), "values");
  bad[5] = 1e9f;  // d = 1e9 / 127 is past f16's 65504
  EXPECT_EQ(invalidArgumentOf([&] { encodeValues(DType::Q8_0, bad); }), "values");
  bad[5] = 1e6f;  // fits Q8_0 (d = 7874), not Q4_0 (d = 125000)
  EXPECT_NO_THROW(encodeValues(DType::Q8_0, bad));
  EXPECT_EQ(invalidArgumentOf([&] { encodeValues(DType::Q4_0, bad); }), "values");
  EXPECT_EQ(storageBytes(DType::Q8_0, 64), 68u);
  EXPECT_EQ(storageBytes(DType::Q4_0, 96), 54u);
  EXPECT_EQ(storageBytes(DType::BF16, 5), 10u);
}

TEST_F(VkattnTest, StorageFormatTensorsRoundTrip) {
  const auto x = randomValues(3 * 64, 12);
  for (DType dtype : {DType::BF16, DType::Q8_0, DType::Q4_0}) {
    Tensor t = ctx().tensor({3, 64}, x, dtype);
    EXPECT_EQ(t.bytes(), storageBytes(dtype, 3 * 64));
    EXPECT_EQ(t.download(), roundTrip(dtype, x)) << toString(dtype);
  }
  EXPECT_EQ(invalidArgumentOf([&] { ctx().tensor({2, 48}, DType::Q8_0); }), "shape");
}

class AttentionKvFormat : public VkattnTest, public ::testing::WithParamInterface<DType> {};

TEST_P(AttentionKvFormat, DecodesInTheRowsKernel) {
  // Prompt rows and decode (lanes split the keys; automatic and explicit key splits), GQA,
  // bottom-right causal with key lengths, sinks and ALiBi; Dk != Dv; f32 and f16 q. bf16 also
  // with a head dim that is not a multiple of 4 (scalar loads).
  const DType format = GetParam();
  struct Case {
    std::size_t lq, lk, dk, dv;
    DType dtype;
  };
  std::vector<Case> cases = {{12, 70, 64, 32, DType::F32}, {1, 200, 64, 64, DType::F32}, {3, 96, 32, 64, DType::F16}};
  if (format == DType::BF16) cases.push_back({5, 33, 30, 18, DType::F32});
  for (const Case& c : cases) {
    SCOPED_TRACE("lq " + std::to_string(c.lq) + ", lk " + std::to_string(c.lk) + ", d " + std::to_string(c.dk) + "/" +
                 std::to_string(c.dv) + ", q " + toString(c.dtype));
    auto pr = problem(2, 8, 2, c.lq, c.lk, c.dk, c.dv);
    pr.causal = true;
    pr.bottomRight = true;
    std::vector<int32_t> lens = {static_cast<int32_t>(c.lk), static_cast<int32_t>(c.lk / 2 + 1)};
    pr.keyLengths = &lens;
    Tensor tLens = Tensor::fromHostInt(ctx().device(), {2}, lens);
    AttentionOptions o = optionsFor(pr);
    o.keyLengths = tLens.view();
    HeadTerms terms;
    addHeadTerms(ctx(), pr, o, terms, true, true);
    Inputs in = makeInputs(ctx(), pr, c.dtype, 700 + c.lq, 2.0f);
    storeKvAs(ctx(), in, format);
    for (uint32_t splits : {0u, 3u}) {
      SCOPED_TRACE("key splits " + std::to_string(splits));
      AttentionOptions s = o;
      s.keySplits = splits;
      check(ctx(), Path::Rows, pr, in, s, c.dtype, 2.0);
    }
  }
}

TEST_P(AttentionKvFormat, ReadsAPagedCache) {
  // A paged cache in the format: decode and a short prompt, GQA, key lengths inside a block.
  const DType format = GetParam();
  for (std::size_t lq : {1u, 6u}) {
    SCOPED_TRACE("lq " + std::to_string(lq));
    auto pr = problem(3, 4, 2, lq, 4 * 16, 64, 64);
    pr.causal = true;
    pr.bottomRight = true;
    pr.alignToKeyLengths = true;
    std::vector<int32_t> lens = {64, 29, 1};
    pr.keyLengths = &lens;
    Tensor tLens = Tensor::fromHostInt(ctx().device(), {3}, lens);
    AttentionOptions o = optionsFor(pr);
    o.keyLengths = tLens.view();
    Inputs in = makeInputs(ctx(), pr, DType::F32, 720 + lq);
    in.k = roundTrip(format, in.k);  // the values the cache will hold (encoding them again is exact)
    in.v = roundTrip(format, in.v);
    const Tensor table = pageInputs(ctx(), pr, in, 16, format, 721);
    o.blockTable = table.view();
    check(ctx(), Path::Rows, pr, in, o, DType::F32);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, AttentionKvFormat, ::testing::Values(DType::BF16, DType::Q8_0, DType::Q4_0),
                         [](const auto& info) { return std::string(toString(info.param)); });

TEST_F(VkattnTest, KvFormatErrorAgainstF32) {
  // The documented cost of each format: attention with k and v stored as bf16 / Q8_0 / Q4_0
  // against the double reference on the unquantized f32 values. q, k, v uniform in [-1, 1],
  // B1 H4 Lq 64 Lk 256 D 128, scale 1/sqrt(D).
  auto pr = problem(1, 4, 4, 64, 256, 128, 128);
  pr.scale = 1.0 / std::sqrt(128.0);
  Inputs in = makeInputs(ctx(), pr, DType::F32, 730);
  const AttentionResult ref = attentionRef(pr, in.q, in.k, in.v);
  AttentionOptions o = optionsFor(pr);
  struct Bound {
    DType dtype;
    double maxAbs;
  };
  for (const Bound& b : {Bound{DType::BF16, 5e-4}, Bound{DType::Q8_0, 1.5e-3}, Bound{DType::Q4_0, 2.5e-2}}) {
    Tensor k = ctx().tensor(in.tk.shape(), in.k, b.dtype), v = ctx().tensor(in.tv.shape(), in.v, b.dtype);
    const auto got = attention(ctx(), in.tq, k, v, o).download();
    double worst = 0.0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - ref.out[i]));
    std::cout << "[kv format] " << toString(b.dtype) << " max |out - f32 ref| " << worst << "\n";
    EXPECT_LE(worst, b.maxAbs) << toString(b.dtype);
    EXPECT_GT(worst, 0.0) << toString(b.dtype) << " lost no precision: the format was not applied";
  }
}

TEST_F(VkattnTest, KvFormatRefusals) {
  Context& c = ctx();
  Tensor q = c.tensor({1, 2, 4, 64}, randomValues(512, 740));
  Tensor k = c.tensor({1, 2, 8, 64}, randomValues(1024, 741), DType::Q8_0);
  Tensor bf = c.tensor({1, 2, 8, 64}, randomValues(1024, 742), DType::BF16);
  for (AttentionVariant variant : {AttentionVariant::Tiled, AttentionVariant::CoopmatEmulated}) {
    try {
      attention(c, q, k, k, {.variant = variant});
      ADD_FAILURE() << toString(variant) << " took q8_0 k";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("'k'"), std::string::npos) << e.what();
    }
  }
  // Auto: the rows kernel, on any device (a head dim of 32: the one block the format needs).
  Tensor q32 = c.tensor({1, 2, 4, 32}, randomValues(256, 745));
  Tensor k32 = c.tensor({1, 2, 8, 32}, randomValues(512, 746), DType::Q8_0);
  EXPECT_EQ(attention(c, q32, k32, k32).shape(), (Shape{1, 2, 4, 32}));
  EXPECT_THROW(attentionNaive(c, q, k, k), Unsupported);
  EXPECT_THROW(attentionWeights(c, q, k), Unsupported);
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q, k, bf); }), "v");  // k and v share a format
  Tensor qBf = c.tensor({1, 2, 4, 64}, randomValues(512, 743), DType::BF16);
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, qBf, bf, bf); }), "q");
  // Views that cut blocks: a head dim of 48, a row starting mid-block.
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q.view().sliced(3, 0, 48), k.view().sliced(3, 0, 48), k); }), "k");
  EXPECT_EQ(invalidArgumentOf([&] {
              attention(c, q.view().sliced(3, 0, 32), k.view().sliced(3, 16, 32), k.view().sliced(3, 0, 32));
            }),
            "k");
  // A NaN stored as bf16 is reported against k.
  std::vector<float> withNan = randomValues(512, 744);
  withNan[77] = std::numeric_limits<float>::quiet_NaN();
  Tensor kNan = c.tensor({1, 2, 8, 32}, withNan, DType::BF16);
  Tensor bf32 = c.tensor({1, 2, 8, 32}, randomValues(512, 747), DType::BF16);
  EXPECT_EQ(invalidArgumentOf([&] { attention(c, q32, kNan, bf32); }), "k");
}

}  // namespace
}  // namespace vkattn::test
