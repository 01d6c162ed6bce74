#include "ggml_k_quants.hpp"

#include "vkattn/core/half.hpp"

namespace vkattn {
namespace {

float halfAt(const uint8_t* p) {
  return halfToFloat(static_cast<uint16_t>(p[0] | (p[1] << 8)));
}

// ggml's get_scale_min_k4: the j-th of eight 6-bit scales and mins packed into 12 bytes.
void scaleMinK4(int j, const uint8_t* q, uint8_t& scale, uint8_t& min) {
  if (j < 4) {
    scale = q[j] & 63;
    min = q[j + 4] & 63;
  } else {
    scale = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    min = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

}  // namespace

void dequantizeQ4_KBlock(const uint8_t* block, float* y) {
  const float d = halfAt(block);
  const float dmin = halfAt(block + 2);
  const uint8_t* scales = block + 4;
  const uint8_t* q = block + 16;
  for (int j = 0, is = 0; j < kQK_K; j += 64, is += 2, q += 32) {
    uint8_t sc, m;
    scaleMinK4(is, scales, sc, m);
    const float d1 = d * sc, m1 = dmin * m;
    scaleMinK4(is + 1, scales, sc, m);
    const float d2 = d * sc, m2 = dmin * m;
    for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>(q[l] & 0xF) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>(q[l] >> 4) - m2;
  }
}

void dequantizeQ5_KBlock(const uint8_t* block, float* y) {
  const float d = halfAt(block);
  const float dmin = halfAt(block + 2);
  const uint8_t* scales = block + 4;
  const uint8_t* qh = block + 16;
  const uint8_t* ql = block + 48;
  uint8_t u1 = 1, u2 = 2;
  for (int j = 0, is = 0; j < kQK_K; j += 64, is += 2, ql += 32) {
    uint8_t sc, m;
    scaleMinK4(is, scales, sc, m);
    const float d1 = d * sc, m1 = dmin * m;
    scaleMinK4(is + 1, scales, sc, m);
    const float d2 = d * sc, m2 = dmin * m;
    for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0)) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
    u1 = static_cast<uint8_t>(u1 << 2);
    u2 = static_cast<uint8_t>(u2 << 2);
  }
}

void dequantizeQ6_KBlock(const uint8_t* block, float* y) {
  const uint8_t* ql = block;
  const uint8_t* qh = block + 128;
  const auto* sc = reinterpret_cast<const int8_t*>(block + 192);
  const float d = halfAt(block + 208);
  for (int n = 0; n < kQK_K; n += 128, y += 128, ql += 64, qh += 32, sc += 8) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[l] = d * sc[is] * static_cast<float>(q1);
      y[l + 32] = d * sc[is + 2] * static_cast<float>(q2);
      y[l + 64] = d * sc[is + 4] * static_cast<float>(q3);
      y[l + 96] = d * sc[is + 6] * static_cast<float>(q4);
    }
  }
}

}  // namespace vkattn
