// ggml's weight types on hand-worked blocks: bytes written out here, the floats they stand for
// worked out in the comments, checked for exact equality. (gguf_crosscheck.py checks the
// same code bit for bit against gguf-py's numpy reference on random data.)
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "vkattn/core/error.hpp"
#include "vkattn/io/ggml_quant.hpp"

namespace vkattn {
namespace {

std::vector<float> dequantize(GgmlType type, const std::vector<uint8_t>& bytes, uint64_t elements) {
  return dequantizeGgml(type, bytes, elements);
}

void expectValues(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(actual[i], expected[i]) << "element " << i;
}

TEST(GgmlQuant, F16AndBF16) {
  // f16: 0x3c00 = 1, 0xc000 = -2, 0x7bff = 65504 (largest), 0x0001 = 2^-24 (smallest subnormal).
  expectValues(dequantize(GgmlType::F16, {0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0x01, 0x00}, 4),
               {1.0f, -2.0f, 65504.0f, 5.9604644775390625e-08f});
  // bf16 is the top half of a binary32: 0x3f80 = 1, 0xc040 = -3, 0x4049 = 0x40490000 = 3.140625.
  expectValues(dequantize(GgmlType::BF16, {0x80, 0x3f, 0x40, 0xc0, 0x49, 0x40}, 3), {1.0f, -3.0f, 3.140625f});
}

TEST(GgmlQuant, Q8_0Block) {
  // d = f16 0x3800 = 0.5; x = d * q for the 32 signed bytes.
  std::vector<uint8_t> block(34, 0);
  block[0] = 0x00, block[1] = 0x38;
  block[2] = 0x01;  // q = 1    -> 0.5
  block[3] = 0xfe;  // q = -2   -> -1
  block[4] = 0x7f;  // q = 127  -> 63.5
  block[5] = 0x80;  // q = -128 -> -64
  std::vector<float> expected(32, 0.0f);
  expected[0] = 0.5f, expected[1] = -1.0f, expected[2] = 63.5f, expected[3] = -64.0f;
  expectValues(dequantize(GgmlType::Q8_0, block, 32), expected);
}

TEST(GgmlQuant, Q4_0Block) {
  // d = f16 0x4000 = 2; byte i holds element i (low nibble) and element i + 16 (high), x = (nibble - 8) * d.
  std::vector<uint8_t> block(18, 0x88);  // nibble 8 -> 0
  block[0] = 0x00, block[1] = 0x40;
  block[2] = 0x9f;  // element 0: (15 - 8) * 2 = 14; element 16: (9 - 8) * 2 = 2
  block[3] = 0x08;  // element 1: 0;                 element 17: (0 - 8) * 2 = -16
  std::vector<float> expected(32, 0.0f);
  expected[0] = 14.0f, expected[16] = 2.0f, expected[17] = -16.0f;
  expectValues(dequantize(GgmlType::Q4_0, block, 32), expected);
}

// The 12 scale bytes shared by the Q4_K and Q5_K blocks below. Sub-block j < 4 has scale
// q[j] & 63 and min q[j + 4] & 63; j >= 4 takes its low four bits from q[j + 4] and its top two
// from the top bits of q[j - 4] (scale) and q[j] (min):
//   q[0] = 0x02: scale 0 = 2      q[4] = 0x03: min 0 = 3
//   q[1] = 0x41: scale 1 = 1      q[5] = 0x84: min 1 = 4
//   q[9] = 0x21: scale 5 = 0x1 | (0x41 >> 6) << 4 = 17, min 5 = 0x2 | (0x84 >> 6) << 4 = 34
// every other scale and min is 0.
std::vector<uint8_t> kScales = {0x02, 0x41, 0x00, 0x00, 0x03, 0x84, 0x00, 0x00, 0x00, 0x21, 0x00, 0x00};

TEST(GgmlQuant, Q4_KBlock) {
  // d = 1 (0x3c00), dmin = 0.5 (0x3800): sub-block j is d * scale_j * nibble - dmin * min_j.
  // Sub-blocks 2k and 2k + 1 are the low and high nibbles of qs[32k .. 32k + 31].
  std::vector<uint8_t> block = {0x00, 0x3c, 0x00, 0x38};
  block.insert(block.end(), kScales.begin(), kScales.end());
  std::vector<uint8_t> qs(128, 0x00);
  qs[0] = 0x5a;   // element 0: 2 * 10 - 1.5 = 18.5; element 32: 1 * 5 - 2 = 3
  qs[64] = 0xf0;  // element 128: 0 * 0 - 0 = 0;     element 160: 17 * 15 - 0.5 * 34 = 238
  block.insert(block.end(), qs.begin(), qs.end());
  ASSERT_EQ(block.size(), 144u);

  std::vector<float> expected(256, 0.0f);
  for (int i = 0; i < 32; ++i) expected[i] = -1.5f;      // sub-block 0, nibble 0: -0.5 * 3
  for (int i = 32; i < 64; ++i) expected[i] = -2.0f;     // sub-block 1: -0.5 * 4
  for (int i = 160; i < 192; ++i) expected[i] = -17.0f;  // sub-block 5: -0.5 * 34
  expected[0] = 18.5f, expected[32] = 3.0f, expected[160] = 238.0f;
  expectValues(dequantize(GgmlType::Q4_K, block, 256), expected);
}

TEST(GgmlQuant, Q5_KBlock) {
  // The Q4_K block above plus 32 bytes qh: bit 2k of qh[l] adds 16 to element l of sub-block 2k,
  // bit 2k + 1 to element l of sub-block 2k + 1.
  std::vector<uint8_t> block = {0x00, 0x3c, 0x00, 0x38};
  block.insert(block.end(), kScales.begin(), kScales.end());
  std::vector<uint8_t> qh(32, 0x00);
  qh[0] = 0x21;  // bit 0: element 0 -> 2 * (10 + 16) - 1.5 = 50.5; bit 5: element 160 -> 17 * 31 - 17 = 510
  qh[1] = 0x02;  // bit 1: element 33 -> 1 * (0 + 16) - 2 = 14
  block.insert(block.end(), qh.begin(), qh.end());
  std::vector<uint8_t> qs(128, 0x00);
  qs[0] = 0x5a, qs[64] = 0xf0;
  block.insert(block.end(), qs.begin(), qs.end());
  ASSERT_EQ(block.size(), 176u);

  std::vector<float> expected(256, 0.0f);
  for (int i = 0; i < 32; ++i) expected[i] = -1.5f;
  for (int i = 32; i < 64; ++i) expected[i] = -2.0f;
  for (int i = 160; i < 192; ++i) expected[i] = -17.0f;
  expected[0] = 50.5f, expected[32] = 3.0f, expected[33] = 14.0f, expected[160] = 510.0f;
  expectValues(dequantize(GgmlType::Q5_K, block, 256), expected);
}

TEST(GgmlQuant, Q6_KBlock) {
  // 128 bytes ql, 64 bytes qh, 16 int8 scales, f16 d = 0.25 (0x3400). In each half of 128
  // elements (ql, qh and the scales advance by 64, 32 and 8), for l < 32 with is = l / 16:
  //   y[l]      = d * sc[is]     * ((ql[l] & 15      | (qh[l] & 3) << 4)        - 32)
  //   y[l + 32] = d * sc[is + 2] * ((ql[l + 32] & 15 | (qh[l] >> 2 & 3) << 4)   - 32)
  //   y[l + 64] = d * sc[is + 4] * ((ql[l] >> 4      | (qh[l] >> 4 & 3) << 4)   - 32)
  //   y[l + 96] = d * sc[is + 6] * ((ql[l + 32] >> 4 | (qh[l] >> 6 & 3) << 4)   - 32)
  std::vector<uint8_t> block(210, 0x00);
  uint8_t* ql = block.data();
  uint8_t* qh = block.data() + 128;
  auto* sc = reinterpret_cast<int8_t*>(block.data() + 192);
  sc[0] = 2, sc[2] = -1, sc[8] = 3, sc[12] = 4;
  block[208] = 0x00, block[209] = 0x34;
  ql[0] = 0x05, qh[0] = 0x02;    // y[0] = 0.25 * 2 * ((5 | 2 << 4) - 32) = 2.5
  ql[64] = 0x30, qh[32] = 0x30;  // second half: y[128] = 0.25 * 3 * (0 - 32) = -24;
                                 //              y[192] = 0.25 * 4 * ((3 | 3 << 4) - 32) = 19
  std::vector<float> expected(256, 0.0f);
  for (int i = 1; i < 16; ++i) expected[i] = -16.0f;     // 0.25 * 2 * -32
  for (int i = 32; i < 48; ++i) expected[i] = 8.0f;      // 0.25 * -1 * -32
  for (int i = 128; i < 144; ++i) expected[i] = -24.0f;  // 0.25 * 3 * -32
  for (int i = 193; i < 208; ++i) expected[i] = -32.0f;  // 0.25 * 4 * -32
  expected[0] = 2.5f, expected[192] = 19.0f;
  expectValues(dequantize(GgmlType::Q6_K, block, 256), expected);
}

TEST(GgmlQuant, Q8_0QuantizesLikeGgmlsReference) {
  // amax = 127, so d = 127 / 127 = 1 (f16 0x3c00) and q = roundf(x), halves away from zero.
  std::vector<float> x(32, 0.0f);
  x[0] = 127.0f, x[1] = -63.5f, x[2] = 0.25f, x[3] = 0.5f, x[4] = -0.5f;
  std::vector<uint8_t> expected(34, 0x00);
  expected[0] = 0x00, expected[1] = 0x3c;
  expected[2] = 0x7f;  // 127
  expected[3] = 0xc0;  // -64
  expected[4] = 0x00;  // 0
  expected[5] = 0x01;  // 1
  expected[6] = 0xff;  // -1
  EXPECT_EQ(quantizeGgml(GgmlType::Q8_0, x), expected);
}

TEST(GgmlQuant, Q4_0QuantizesLikeGgmlsReference) {
  // The value of largest magnitude, with its sign, is -8: d = -8 / -8 = 1 (f16 0x3c00), and
  // q = min(15, (int)(x / d + 8.5)).
  std::vector<float> x(32, 0.0f);  // 0 -> 8
  x[0] = -8.0f;                    // 0.5 -> 0
  x[16] = 7.0f;                    // 15.5 -> 15
  x[1] = 3.4f;                     // 11.9 -> 11
  x[17] = 7.9f;                    // 16.4 -> 16 -> 15
  x[2] = -0.6f;                    // 7.9 -> 7
  std::vector<uint8_t> expected(18, 0x88);
  expected[0] = 0x00, expected[1] = 0x3c;
  expected[2] = 0xf0, expected[3] = 0xfb, expected[4] = 0x87;
  EXPECT_EQ(quantizeGgml(GgmlType::Q4_0, x), expected);
  // A positive extreme flips d's sign: max 16 gives d = -2 (0xc000), and 16 quantizes to nibble 0.
  std::vector<float> y(32, 0.0f);
  y[5] = 16.0f;
  const std::vector<uint8_t> q = quantizeGgml(GgmlType::Q4_0, y);
  EXPECT_EQ(q[0], 0x00);
  EXPECT_EQ(q[1], 0xc0);
  EXPECT_EQ(q[2 + 5], 0x80);  // element 5 low nibble 0, element 21 high nibble 8
}

// Within one step d: Q8_0 rounds to the nearest step of an f16-rounded d; Q4_0's 16 levels run
// from -8 to 7 steps, so the extreme of the other sign than the scale's lands a whole step short.
TEST(GgmlQuant, QuantizedRoundTripsStayWithinAStep) {
  std::vector<float> x(64);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 37 % 101) - 50) / 16.0f;
  for (GgmlType type : {GgmlType::Q8_0, GgmlType::Q4_0}) {
    const std::vector<float> y = dequantizeGgml(type, quantizeGgml(type, x), x.size());
    const float tolerance = type == GgmlType::Q8_0 ? 50.0f / 16 / 127 : 50.0f / 16 / 8;
    for (std::size_t i = 0; i < x.size(); ++i)
      EXPECT_NEAR(y[i], x[i], tolerance * 1.001f) << ggmlTypeName(type) << " element " << i;
  }
}

TEST(GgmlQuant, SizesAndUnsupportedTypes) {
  EXPECT_EQ(ggmlStorageBytes(GgmlType::Q4_K, 512), 288u);
  EXPECT_EQ(ggmlStorageBytes(GgmlType::Q6_K, 256), 210u);
  EXPECT_THROW(ggmlStorageBytes(GgmlType::Q8_0, 33), InvalidArgument);
  EXPECT_THROW(dequantize(GgmlType::Q8_0, std::vector<uint8_t>(33), 32), InvalidArgument);
  EXPECT_THROW(quantizeGgml(GgmlType::Q4_0, std::vector<float>(31)), InvalidArgument);
  std::vector<float> nan(32, 0.0f);
  nan[3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(quantizeGgml(GgmlType::Q8_0, nan), InvalidArgument);
  try {
    dequantize(GgmlType::Q4_1, std::vector<uint8_t>(20), 32);
    ADD_FAILURE() << "Q4_1 dequantized";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("Q4_1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(quantizeGgml(GgmlType::Q2_K, std::vector<float>(256)), Unsupported);
}

}  // namespace
}  // namespace vkattn
