#include "k_quant_blocks.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "vkattn/core/error.hpp"
#include "vkattn/core/half.hpp"

namespace vkattn::detail {
namespace {

float halfAt(const uint8_t* p) {
  return halfToFloat(static_cast<uint16_t>(p[0] | (p[1] << 8)));
}

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

void dequantizeQ4_KBlock(const uint8_t* block, float* out) {
  dequantizeScaledNibbles(block, nullptr, block + 16, out);
}

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

namespace {

void putHalf(uint8_t* p, uint16_t bits) {
  p[0] = static_cast<uint8_t>(bits & 0xFFu);
  p[1] = static_cast<uint8_t>(bits >> 8);
}

// The f16 nearest to v >= 0 that is not below it (so a factor derived from it never clips).
uint16_t halfNotBelow(float v, const char* format) {
  uint16_t bits = floatToHalf(v);
  if (halfToFloat(bits) < v) ++bits;
  if (std::isinf(halfToFloat(bits)))
    throw InvalidArgument("values", std::string("a block's range exceeds what ") + format + "'s f16 factors can hold");
  return bits;
}

void requireFinite(const float* x, const char* format) {
  for (int i = 0; i < kQK_K; ++i)
    if (!std::isfinite(x[i])) throw InvalidArgument("values", std::string(format) + " cannot hold NaN or infinity");
}

// The smallest k in 0..limit with step * k >= v (v >= 0), or 0 for a zero step.
unsigned stepsCovering(float v, float step, unsigned limit) {
  if (step <= 0.0f) return 0;
  return static_cast<unsigned>(std::min<float>(static_cast<float>(limit), std::ceil(v / step)));
}

// Q4_K (levels 15) and Q5_K (31): per sub-block s, x = scale_s * q - min_s with q in 0..levels.
void quantizeScaledNibbles(const float* x, uint8_t* block, unsigned levels, const char* format) {
  requireFinite(x, format);
  float high[8], lowMin[8];  // per sub-block: its largest value, and -min(0, its smallest)
  float maxMin = 0.0f;
  for (int s = 0; s < 8; ++s) {
    const float* sub = x + 32 * s;
    high[s] = *std::max_element(sub, sub + 32);
    lowMin[s] = -std::min(0.0f, *std::min_element(sub, sub + 32));
    maxMin = std::max(maxMin, lowMin[s]);
  }
  const uint16_t dminBits = halfNotBelow(maxMin / 63.0f, format);
  const float dmin = halfToFloat(dminBits);
  unsigned mins[8], scales[8];
  float subtract[8], need[8], maxNeed = 0.0f;
  for (int s = 0; s < 8; ++s) {
    mins[s] = stepsCovering(lowMin[s], dmin, 63);
    subtract[s] = dmin * static_cast<float>(mins[s]);
    need[s] = std::max(0.0f, (high[s] + subtract[s]) / static_cast<float>(levels));
    maxNeed = std::max(maxNeed, need[s]);
  }
  const uint16_t dBits = halfNotBelow(maxNeed / 63.0f, format);
  const float d = halfToFloat(dBits);
  putHalf(block, dBits);
  putHalf(block + 2, dminBits);
  uint8_t* packed = block + 4;
  std::fill(packed, packed + 12, uint8_t{0});
  for (int s = 0; s < 8; ++s) scales[s] = stepsCovering(need[s], d, 63);
  for (int s = 0; s < 4; ++s) {
    packed[s] = static_cast<uint8_t>(scales[s] | ((scales[s + 4] >> 4) << 6));
    packed[s + 4] = static_cast<uint8_t>(mins[s] | ((mins[s + 4] >> 4) << 6));
    packed[s + 8] = static_cast<uint8_t>((scales[s + 4] & 0xFu) | ((mins[s + 4] & 0xFu) << 4));
  }
  const bool fifthBit = levels == 31;
  uint8_t* highBits = block + 16;
  uint8_t* nibbles = block + (fifthBit ? 48 : 16);
  if (fifthBit) std::fill(highBits, highBits + 32, uint8_t{0});
  std::fill(nibbles, nibbles + 128, uint8_t{0});
  for (int s = 0; s < 8; ++s) {
    const float scale = d * static_cast<float>(scales[s]);
    for (int e = 0; e < 32; ++e) {
      long q = scale > 0.0f ? std::lround((x[32 * s + e] + subtract[s]) / scale) : 0;
      q = std::clamp<long>(q, 0, levels);
      nibbles[32 * (s / 2) + e] |= static_cast<uint8_t>((q & 0xF) << (s % 2 == 0 ? 0 : 4));
      if (fifthBit && q >= 16) highBits[e] |= static_cast<uint8_t>(1u << s);
    }
  }
}

}  // namespace

void quantizeQ4_KBlock(const float* x, uint8_t* block) {
  quantizeScaledNibbles(x, block, 15, "q4_k");
}

void quantizeQ5_KBlock(const float* x, uint8_t* block) {
  quantizeScaledNibbles(x, block, 31, "q5_k");
}

// Q6_K: per sub-block of 16, a step covering its largest magnitude in 31 steps (q - 32 in -31..31,
// so neither sign clips), the step an int8 multiple of the super-block's f16 d.
void quantizeQ6_KBlock(const float* x, uint8_t* block) {
  requireFinite(x, "q6_k");
  float need[16], maxNeed = 0.0f;
  for (int j = 0; j < 16; ++j) {
    float amax = 0.0f;
    for (int i = 0; i < 16; ++i) amax = std::max(amax, std::fabs(x[16 * j + i]));
    need[j] = amax / 31.0f;
    maxNeed = std::max(maxNeed, need[j]);
  }
  const uint16_t dBits = halfNotBelow(maxNeed / 127.0f, "q6_k");
  const float d = halfToFloat(dBits);
  uint8_t* low = block;
  uint8_t* high = block + 128;
  std::fill(block, block + 192, uint8_t{0});
  putHalf(block + 208, dBits);
  for (int j = 0; j < 16; ++j) {
    const unsigned scale = stepsCovering(need[j], d, 127);
    block[192 + j] = static_cast<uint8_t>(scale);
    const float step = d * static_cast<float>(scale);
    for (int i = 0; i < 16; ++i) {
      const int element = 16 * j + i;
      const long q = step > 0.0f ? std::clamp<long>(std::lround(x[element] / step), -32, 31) : 0;
      const auto stored = static_cast<unsigned>(q + 32);
      const int h = element / 128, quarter = element % 128 / 32, e = element % 32;
      low[64 * h + e + (quarter % 2) * 32] |= static_cast<uint8_t>((stored & 0xFu) << (quarter < 2 ? 0 : 4));
      high[32 * h + e] |= static_cast<uint8_t>((stored >> 4) << (2 * quarter));
    }
  }
}

}  // namespace vkattn::detail
