#include "vkattn/core/half.hpp"

#include <bit>

namespace vkattn {

uint16_t floatToHalf(float value) noexcept {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t absBits = bits & 0x7fffffffu;
  if (absBits >= 0x7f800000u)  // inf or NaN (NaN keeps a payload bit so it stays NaN)
    return static_cast<uint16_t>(sign | 0x7c00u | (absBits > 0x7f800000u ? 0x200u : 0u));
  if (absBits >= 0x477ff000u)  // rounds to >= 65520: overflow to inf
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (absBits < 0x38800000u) {                                      // subnormal half or zero
    if (absBits < 0x33000000u) return static_cast<uint16_t>(sign);  // below half of the smallest subnormal
    const uint32_t mantissa = (absBits & 0x7fffffu) | 0x800000u;
    const int shift = 126 - static_cast<int>(absBits >> 23);  // 14..24: value / 2^-24 = mantissa >> shift
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = ((absBits - 0x38000000u) >> 13);
  const uint32_t rest = absBits & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

float halfToFloat(uint16_t h) noexcept {
  const uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    int e = -1;
    do {
      ++e;
      mantissa <<= 1;
    } while (!(mantissa & 0x400u));
    bits = sign | ((112u - static_cast<uint32_t>(e)) << 23) | ((mantissa & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

}  // namespace vkattn
