// linear()'s weights stored in ggml's block formats, or as f16 under f32 activations, decoded as
// they load (host side and layouts: vkattn/core/storage_formats.hpp; K-quants:
// base/src/k_quant_blocks.hpp). One of WEIGHT_Q8_0, WEIGHT_Q4_0, WEIGHT_Q4_K,
// WEIGHT_Q5_K, WEIGHT_Q6_K, WEIGHT_F16 (read in "blocks" of 32 halves, no scale) is defined; the includer binds
// the weights as 32-bit words W_WORDS[] (whole words: the runtime rounds block tensors up to 4
// bytes). A row of K weights is K / BLOCK_ELEMENTS consecutive blocks starting at an even byte
// address. Blocks are 2-byte aligned at worst (Q8_0's 34 and Q6_K's 210 bytes), so every 4-byte
// read goes through wBytes4, which joins two words when the address is 2 mod 4.
//
// A row is read in units: 32 elements (one Q8_0 / Q4_0 block) or 64 (a quarter of a K-quant
// super-block: two 32-element groups that share their bytes: sub-blocks 2q and 2q + 1 of Q4_K and
// Q5_K, quarters p and p + 2 of one Q6_K half). A unit is decoded in UNIT / 8 pieces; piece j
// holds unit elements 4j .. 4j + 3 (lo) and UNIT / 2 + 4j .. + 3 (hi), from one 4-byte word of
// quants (two for Q8_0, four for f16, plus one of high bits for Q5_K and Q6_K). unitElement maps a unit's
// element to its column of the row (Q6_K's two groups lie 64 columns apart).
#ifndef VKATTN_WEIGHT_FORMATS_GLSL
#define VKATTN_WEIGHT_FORMATS_GLSL

#include "block_layouts.h"

#if defined(WEIGHT_Q8_0)
const uint BLOCK_ELEMENTS = Q8_0_BLOCK_ELEMENTS, BLOCK_BYTES = Q8_0_BLOCK_BYTES, UNIT = 32;
#elif defined(WEIGHT_Q4_0)
const uint BLOCK_ELEMENTS = Q4_0_BLOCK_ELEMENTS, BLOCK_BYTES = Q4_0_BLOCK_BYTES, UNIT = 32;
#elif defined(WEIGHT_Q4_K)
const uint BLOCK_ELEMENTS = Q4_K_BLOCK_ELEMENTS, BLOCK_BYTES = Q4_K_BLOCK_BYTES, UNIT = 64;
#elif defined(WEIGHT_Q5_K)
const uint BLOCK_ELEMENTS = Q5_K_BLOCK_ELEMENTS, BLOCK_BYTES = Q5_K_BLOCK_BYTES, UNIT = 64;
#elif defined(WEIGHT_Q6_K)
const uint BLOCK_ELEMENTS = Q6_K_BLOCK_ELEMENTS, BLOCK_BYTES = Q6_K_BLOCK_BYTES, UNIT = 64;
#elif defined(WEIGHT_F16)
const uint BLOCK_ELEMENTS = 32, BLOCK_BYTES = 64, UNIT = 32;
#else
#error "define one WEIGHT_<format>"
#endif
const uint PIECES = UNIT / 8;
const uint UNITS_PER_BLOCK = BLOCK_ELEMENTS / UNIT;

// The column of the row that element c (0 .. UNIT - 1) of unit u holds.
uint unitElement(uint u, uint c) {
#if defined(WEIGHT_Q6_K)
  const uint q = u % UNITS_PER_BLOCK;
  const uint first = u / UNITS_PER_BLOCK * BLOCK_ELEMENTS + 128u * (q >> 1) + 32u * (q & 1u);
  return first + (c < UNIT / 2u ? c : 64u + c - UNIT / 2u);
#else
  return u * UNIT + c;
#endif
}

// The 4 bytes at even byte address a, the first in the low byte. Formats whose blocks are only
// 2-byte aligned read both words without a branch (neighbouring lanes meet both alignments; the
// second index is clamped to the buffer, unused where a is a multiple of 4).
uint wBytes4(uint a) {
  const uint w = W_WORDS[a >> 2];
#if defined(WEIGHT_Q4_K) || defined(WEIGHT_Q5_K)
  return (a & 2u) == 0u ? w : (w >> 16) | (W_WORDS[(a >> 2) + 1u] << 16);
#else
  const uint next = W_WORDS[min((a >> 2) + 1u, uint(W_WORDS.length()) - 1u)];
  return (a & 2u) == 0u ? w : (w >> 16) | (next << 16);
#endif
}
// The f16 at even byte address a.
float wHalf(uint a) { return unpackHalf2x16(W_WORDS[a >> 2] >> ((a & 2u) * 8u)).x; }

vec4 unsignedBytes(uint w) { return vec4((uvec4(w) >> uvec4(0u, 8u, 16u, 24u)) & 0xFFu); }
vec4 signedBytes(uint w) { return vec4((ivec4(w) << ivec4(24, 16, 8, 0)) >> 24); }
vec4 lowNibbles(uint w) { return unsignedBytes(w & 0x0F0F0F0Fu); }
vec4 highNibbles(uint w) { return unsignedBytes((w >> 4) & 0x0F0F0F0Fu); }

// One unit's addresses and factors.
struct Unit {
  uint quants;  // byte address of its quants
  uint high;    // byte address of its high bits (Q5_K, Q6_K)
  uint shift;   // Q5_K: the lo sub-block's bit; Q6_K: the lo quarter's bit pair
  vec4 f;       // Q8_0, Q4_0: d; Q4_K, Q5_K: lo scale, lo min, hi scale, hi min; Q6_K: the
                // four 16-element scales times d (lo first half, lo second, hi first, hi second)
};

#if defined(WEIGHT_Q4_K) || defined(WEIGHT_Q5_K)
// Scale and min (6 bits each) of sub-block s from the 12 packed bytes w (three words).
uvec2 packedScaleMin(uvec3 w, uint s) {
  const uint k = 8u * (s & 3u);
  const uint b0 = (w.x >> k) & 0xFFu, b1 = (w.y >> k) & 0xFFu, b2 = (w.z >> k) & 0xFFu;
  if (s < 4u) return uvec2(b0 & 63u, b1 & 63u);
  return uvec2((b2 & 0xFu) | ((b0 >> 6) << 4), (b2 >> 4) | ((b1 >> 6) << 4));
}
#endif

// Unit u of the row whose first block starts at byte rowByte.
Unit loadUnit(uint rowByte, uint u) {
  const uint block = rowByte + u / UNITS_PER_BLOCK * BLOCK_BYTES;
  const uint q = u % UNITS_PER_BLOCK;
  Unit h;
  h.high = 0u;
  h.shift = 0u;
#if defined(WEIGHT_F16)
  h.quants = block;
  h.f = vec4(1.0);
#elif defined(WEIGHT_Q8_0) || defined(WEIGHT_Q4_0)
  h.quants = block + 2u;
  h.f = vec4(wHalf(block));
#elif defined(WEIGHT_Q4_K) || defined(WEIGHT_Q5_K)
  const vec2 dm = unpackHalf2x16(wBytes4(block));  // d, dmin
  const float d = dm.x, dmin = dm.y;
  const uvec3 packed = uvec3(wBytes4(block + 4u), wBytes4(block + 8u), wBytes4(block + 12u));
  const uvec2 lo = packedScaleMin(packed, 2u * q), hi = packedScaleMin(packed, 2u * q + 1u);
  h.f = vec4(d * float(lo.x), dmin * float(lo.y), d * float(hi.x), dmin * float(hi.y));
#if defined(WEIGHT_Q4_K)
  h.quants = block + 16u + 32u * q;
#else
  h.quants = block + 48u + 32u * q;
  h.high = block + 16u;
  h.shift = 2u * q;
#endif
#else  // Q6_K: unit q is half q / 2, quarters q % 2 (lo) and q % 2 + 2 (hi)
  const uint half_ = q >> 1, p = q & 1u;
  h.quants = block + 64u * half_ + 32u * p;
  h.high = block + 128u + 32u * half_;
  h.shift = 2u * p;
  const float d = wHalf(block + 208u);
  const uint scales = block + 192u + 8u * half_ + 2u * p;
  const uint s01 = wBytes4(scales), s45 = wBytes4(scales + 4u);
  h.f = d * vec4(signedBytes((s01 & 0xFFFFu) | (s45 << 16)));
#endif
  return h;
}

// Piece j of a unit: elements 4j .. 4j + 3 (lo) and UNIT / 2 + 4j .. + 3 (hi).
void decodePiece(Unit h, uint j, out vec4 lo, out vec4 hi) {
#if defined(WEIGHT_F16)
  lo = vec4(unpackHalf2x16(wBytes4(h.quants + 8u * j)), unpackHalf2x16(wBytes4(h.quants + 8u * j + 4u)));
  hi = vec4(unpackHalf2x16(wBytes4(h.quants + 32u + 8u * j)), unpackHalf2x16(wBytes4(h.quants + 36u + 8u * j)));
#elif defined(WEIGHT_Q8_0)
  lo = h.f.x * signedBytes(wBytes4(h.quants + 4u * j));
  hi = h.f.x * signedBytes(wBytes4(h.quants + 16u + 4u * j));
#elif defined(WEIGHT_Q4_0)
  const uint w = wBytes4(h.quants + 4u * j);
  lo = h.f.x * (lowNibbles(w) - 8.0);
  hi = h.f.x * (highNibbles(w) - 8.0);
#elif defined(WEIGHT_Q4_K)
  const uint w = wBytes4(h.quants + 4u * j);
  lo = h.f.x * lowNibbles(w) - h.f.y;
  hi = h.f.z * highNibbles(w) - h.f.w;
#elif defined(WEIGHT_Q5_K)
  const uint w = wBytes4(h.quants + 4u * j);
  const uint bits = wBytes4(h.high + 4u * j) >> h.shift;
  lo = h.f.x * (lowNibbles(w) + 16.0 * unsignedBytes(bits & 0x01010101u)) - h.f.y;
  hi = h.f.z * (highNibbles(w) + 16.0 * unsignedBytes((bits >> 1) & 0x01010101u)) - h.f.w;
#else  // Q6_K
  const uint w = wBytes4(h.quants + 4u * j);
  const uint bits = wBytes4(h.high + 4u * j) >> h.shift;
  const vec4 qlo = unsignedBytes((w & 0x0F0F0F0Fu) | ((bits & 0x03030303u) << 4)) - 32.0;
  const vec4 qhi = unsignedBytes(((w >> 4) & 0x0F0F0F0Fu) | (((bits >> 4) & 0x03030303u) << 4)) - 32.0;
  const bool first = j < PIECES / 2;
  lo = (first ? h.f.x : h.f.y) * qlo;
  hi = (first ? h.f.z : h.f.w) * qhi;
#endif
}

#if !defined(WEIGHT_F16)
// Piece j of a unit as integers, for dot products with 8-bit x (linear_q_matvec_int8.comp): the
// lo and hi elements' quants packed as four signed bytes each, such that weight = scale * quant -
// offset, with scale from pieceScales and offset from unitOffsets (nonzero for the K-quants' mins
// only). Q4_0's - 8 and Q6_K's - 32 are taken inside the bytes: (q | 0x80) - c stays within each
// byte for 0 <= q < 128, and ^ 0x80 turns q + 128 - c into the two's complement of q - c.
uint biasedBytes(uint w, uint c) { return ((w | 0x80808080u) - c * 0x01010101u) ^ 0x80808080u; }

void decodePieceInt8(Unit h, uint j, out uint lo, out uint hi) {
#if defined(WEIGHT_Q8_0)
  lo = wBytes4(h.quants + 4u * j);
  hi = wBytes4(h.quants + 16u + 4u * j);
#elif defined(WEIGHT_Q4_0)
  const uint w = wBytes4(h.quants + 4u * j);
  lo = biasedBytes(w & 0x0F0F0F0Fu, 8u);
  hi = biasedBytes((w >> 4) & 0x0F0F0F0Fu, 8u);
#elif defined(WEIGHT_Q4_K)
  const uint w = wBytes4(h.quants + 4u * j);
  lo = w & 0x0F0F0F0Fu;
  hi = (w >> 4) & 0x0F0F0F0Fu;
#elif defined(WEIGHT_Q5_K)
  const uint w = wBytes4(h.quants + 4u * j);
  const uint bits = wBytes4(h.high + 4u * j) >> h.shift;
  lo = (w & 0x0F0F0F0Fu) | ((bits & 0x01010101u) << 4);
  hi = ((w >> 4) & 0x0F0F0F0Fu) | (((bits >> 1) & 0x01010101u) << 4);
#else  // Q6_K
  const uint w = wBytes4(h.quants + 4u * j);
  const uint bits = wBytes4(h.high + 4u * j) >> h.shift;
  lo = biasedBytes((w & 0x0F0F0F0Fu) | ((bits & 0x03030303u) << 4), 32u);
  hi = biasedBytes(((w >> 4) & 0x0F0F0F0Fu) | (((bits >> 4) & 0x03030303u) << 4), 32u);
#endif
}

// The factors of piece j's lo and hi quants.
vec2 pieceScales(Unit h, uint j) {
#if defined(WEIGHT_Q8_0) || defined(WEIGHT_Q4_0)
  return h.f.xx;
#elif defined(WEIGHT_Q4_K) || defined(WEIGHT_Q5_K)
  return h.f.xz;
#else  // Q6_K: 16-element scales
  return j < PIECES / 2 ? h.f.xz : h.f.yw;
#endif
}

// What each weight of the unit's lo and hi groups has subtracted (the K-quants' mins).
vec2 unitOffsets(Unit h) {
#if defined(WEIGHT_Q4_K) || defined(WEIGHT_Q5_K)
  return h.f.yw;
#else
  return vec2(0.0);
#endif
}
#endif

// Whether any weight of the row (K elements from byte rowByte) decodes to NaN (the NaN report).
bool weightRowHasNan(uint rowByte, uint k) {
  for (uint u = 0u; u < k / UNIT; ++u) {
    const Unit h = loadUnit(rowByte, u);
    [[unroll]] for (uint j = 0u; j < PIECES; ++j) {
      vec4 lo, hi;
      decodePiece(h, j, lo, hi);
      if (any(isnan(lo)) || any(isnan(hi))) return true;
    }
  }
  return false;
}

#endif
