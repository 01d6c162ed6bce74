// K and V stored as bf16 or in ggml's block formats, decoded as the rows attention kernel reads
// them (KV_BF16, KV_Q8_0 or KV_Q4_0 defined; the host side is vkattn/core/storage_formats.hpp).
// The buffers are bound as 32-bit words; element offsets are in elements of the format, and
// the block formats need rows that start at multiples of 32 elements and head dims that are
// multiples of 32 (the runtime checks both), so a vec4 never crosses a block.
//   bf16: element x is the upper half of an IEEE binary32, 2 bytes at byte 2x.
//   Q8_0: block x / 32 at byte 34 (x / 32): an f16 scale d, then 32 int8 q; x = d * q.
//   Q4_0: block x / 32 at byte 18 (x / 32): an f16 scale d, then 16 bytes; byte i holds element
//         i in its low nibble and element i + 16 in its high nibble; x = d * (nibble - 8).
// Needs K_WORDS and V_WORDS, the words of the K and V buffers (bf16: K_PAIRS and V_PAIRS too, the
// same buffers as uvec2s), and ALIGNED.
#ifndef VKATTN_KV_FORMATS_GLSL
#define VKATTN_KV_FORMATS_GLSL

// Word i of K (isK) or V: the flag is a constant at every call, so the choice folds away.
uint kvWord(bool isK, uint i) { return isK ? K_WORDS[i] : V_WORDS[i]; }

#if defined(KV_BF16)
const uint KV_BLOCK = 1;
float bf16At(bool isK, uint x) {
  const uint w = kvWord(isK, x >> 1);
  return uintBitsToFloat((x & 1u) != 0u ? (w & 0xffff0000u) : (w << 16));
}
// Elements a buffer of `words` words holds.
uint kvElements(uint words) { return words * 2u; }
// Elements 4d .. 4d + 3 of the row starting at element `row` (0 past the head dim D).
vec4 loadKV4(bool isK, uint row, uint d, uint D) {
  const uint x = row + 4u * d;
  if (ALIGNED) {  // x is a multiple of 4: one 8-byte load
    const uvec2 w = isK ? K_PAIRS[x >> 2] : V_PAIRS[x >> 2];
    const uint w0 = w.x, w1 = w.y;
    return vec4(uintBitsToFloat(w0 << 16), uintBitsToFloat(w0 & 0xffff0000u), uintBitsToFloat(w1 << 16),
                uintBitsToFloat(w1 & 0xffff0000u));
  }
  return vec4(bf16At(isK, x), 4u * d + 1u < D ? bf16At(isK, x + 1u) : 0.0,
              4u * d + 2u < D ? bf16At(isK, x + 2u) : 0.0, 4u * d + 3u < D ? bf16At(isK, x + 3u) : 0.0);
}
#else
#include "block_layouts.h"
#if defined(KV_Q8_0)
const uint KV_BLOCK = Q8_0_BLOCK_ELEMENTS, KV_BLOCK_BYTES = Q8_0_BLOCK_BYTES;
#else
const uint KV_BLOCK = Q4_0_BLOCK_ELEMENTS, KV_BLOCK_BYTES = Q4_0_BLOCK_BYTES;
#endif
uint kvElements(uint words) { return words * 4u / KV_BLOCK_BYTES * KV_BLOCK; }
// The 16 bits at even byte address a.
uint kvBits16(bool isK, uint a) { return (kvWord(isK, a >> 2) >> ((a & 2u) * 8u)) & 0xffffu; }
// The 4 bytes at even byte address a, the first in the low byte.
uint kvBytes4(bool isK, uint a) {
  const uint w = kvWord(isK, a >> 2);
  return (a & 2u) == 0u ? w : (w >> 16) | (kvWord(isK, (a >> 2) + 1u) << 16);
}
vec4 loadKV4(bool isK, uint row, uint d, uint D) {
  const uint x = row + 4u * d, pos = x % KV_BLOCK;
  const uint base = x / KV_BLOCK * KV_BLOCK_BYTES;
  const float scale = unpackHalf2x16(kvBits16(isK, base)).x;
#if defined(KV_Q8_0)
  const int w = int(kvBytes4(isK, base + 2u + pos));
  return vec4(bitfieldExtract(w, 0, 8), bitfieldExtract(w, 8, 8), bitfieldExtract(w, 16, 8),
              bitfieldExtract(w, 24, 8)) * scale;
#else
  const uint w = kvBytes4(isK, base + 2u + pos % 16u) >> (pos < 16u ? 0u : 4u);
  return (vec4(w & 15u, (w >> 8) & 15u, (w >> 16) & 15u, (w >> 24) & 15u) - 8.0) * scale;
#endif
}
#endif

#endif
