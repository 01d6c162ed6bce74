#include "ggml_k_quants.hpp"

#include "vkattn/core/half.hpp"

namespace vkattn {
namespace {

float halfAt(const uint8_t* p) { return halfToFloat(static_cast<uint16_t>(p[0] | (p[1] << 8))); }

// Scale and min of sub-block s (0..7) of a Q4_K / Q5_K super-block, 6 bits each in 12 bytes:
// sub-blocks 0..3 keep theirs in the low 6 bits of bytes s and s + 4; sub-blocks 4..7 keep their
// low 4 bits in the nibbles of byte s + 4 and their high 2 bits in the top bits of bytes s - 4
// (scale) and s (min).
struct ScaleMin {
  float scale, min;
};
ScaleMin packedScaleMin(const uint8_t* packed, int s, float d, float dmin) {
  unsigned scale = 0, min = 0;
  if (s < 4) {
    scale = packed[s] & 63u;
    min = packed[s + 4] & 63u;
  } else {
    scale = (packed[s + 4] & 0xFu) | ((packed[s - 4] >> 6) << 4);
    min = (packed[s + 4] >> 4) | ((packed[s] >> 6) << 4);
  }
  return {d * static_cast<float>(scale), dmin * static_cast<float>(min)};
}

// Q4_K and Q5_K: element e of sub-block s is scale_s * q - min_s, q the low (even s) or high (odd
// s) nibble of byte e of the 32-byte group s / 2, plus 16 when Q5_K's fifth bit is set (bit s of
// high-bit byte e).
void dequantizeScaledNibbles(const uint8_t* block, const uint8_t* highBits, const uint8_t* nibbles, float* out) {
  const float d = halfAt(block), dmin = halfAt(block + 2);
  const uint8_t* packed = block + 4;
  for (int s = 0; s < 8; ++s) {
    const ScaleMin sm = packedScaleMin(packed, s, d, dmin);
    const uint8_t* group = nibbles + 32 * (s / 2);
    for (int e = 0; e < 32; ++e) {
      unsigned q = s % 2 == 0 ? group[e] & 0xFu : group[e] >> 4;
      if (highBits && (highBits[e] >> s) & 1u) q += 16;
      out[32 * s + e] = sm.scale * static_cast<float>(q) - sm.min;
    }
  }
}

}  // namespace

void dequantizeQ4_KBlock(const uint8_t* block, float* out) { dequantizeScaledNibbles(block, nullptr, block + 16, out); }

void dequantizeQ5_KBlock(const uint8_t* block, float* out) {
  dequantizeScaledNibbles(block, block + 16, block + 48, out);
}

// Q6_K: two halves of 128 elements; in half h, element 32 * quarter + i (quarter 0..3, i 0..31)
// takes the low (quarters 0, 1) or high (2, 3) nibble of low-bit byte 64 h + i (+ 32 for quarters
// 1 and 3) and bits 2 * quarter, 2 * quarter + 1 of high-bit byte 32 h + i, as a 6-bit value minus
// 32, times d times the int8 scale of its 16 elements.
void dequantizeQ6_KBlock(const uint8_t* block, float* out) {
  const uint8_t* low = block;
  const uint8_t* high = block + 128;
  const auto* scales = reinterpret_cast<const int8_t*>(block + 192);
  const float d = halfAt(block + 208);
  for (int h = 0; h < 2; ++h)
    for (int quarter = 0; quarter < 4; ++quarter)
      for (int i = 0; i < 32; ++i) {
        const uint8_t lowByte = low[64 * h + i + (quarter % 2) * 32];
        const unsigned nibble = quarter < 2 ? lowByte & 0xFu : lowByte >> 4;
        const unsigned top = (high[32 * h + i] >> (2 * quarter)) & 3u;
        const int q = static_cast<int>(nibble | (top << 4)) - 32;
        const int element = 128 * h + 32 * quarter + i;
        out[element] = d * static_cast<float>(scales[element / 16]) * static_cast<float>(q);
      }
}

}  // namespace vkattn
