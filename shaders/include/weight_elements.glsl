// One weight of a block in ggml's block formats, decoded on its own: element c (0 ..
// BLOCK_ELEMENTS - 1) of the block h, from the block's 16-bit halves. What tensor-addressed loads
// need (a cooperative-matrix-2 decode function is asked for one element at a time) and what
// dequantize.comp runs on every device, so the same lines are executed by the tests. The
// matrix-vector and tiled kernels decode a unit of elements at once instead (weight_formats.glsl).
// Layouts: vkattn/core/block_layouts.h; arithmetic as the host's decoder (core/storage_formats,
// base/src/k_quant_blocks.cpp), so the floats are the host's exactly: K-quants scale * q - min
// (not fused into one rounding), scale and min each d (dmin) times their 6-bit factor; Q6_K d
// times its int8 scale, times q - 32.
//
// The includer defines WEIGHT_<format> (Q8_0, Q4_0, Q4_K, Q5_K or Q6_K), declares W_WORDS[] for
// weight_formats.glsl (whose BLOCK_ELEMENTS and BLOCK_BYTES this reads), and defines the type
// BLOCK_HANDLE that names a block and `uint blockHalf(const in BLOCK_HANDLE h, uint i)`: the
// block's i-th 16-bit half (bytes 2i, 2i + 1) in the low bits.
#ifndef VKATTN_WEIGHT_ELEMENTS_GLSL
#define VKATTN_WEIGHT_ELEMENTS_GLSL

#include "weight_formats.glsl"  // BLOCK_ELEMENTS, BLOCK_BYTES
#if !defined(WEIGHT_Q8_0) && !defined(WEIGHT_Q4_0) && !defined(WEIGHT_Q4_K) && !defined(WEIGHT_Q5_K) && \
    !defined(WEIGHT_Q6_K)
#error "define one WEIGHT_<format> of a block format"
#endif

// Byte b of the block.
uint blockByte(const in BLOCK_HANDLE h, uint b) { return (blockHalf(h, b >> 1) >> ((b & 1u) * 8u)) & 0xFFu; }
// The f16 at byte b (even) of the block.
float blockF16(const in BLOCK_HANDLE h, uint b) { return unpackHalf2x16(blockHalf(h, b >> 1)).x; }

#if defined(WEIGHT_Q4_K) || defined(WEIGHT_Q5_K)
// Sub-block s's 6-bit scale (x) and min (y), from the 12 packed bytes at byte 4.
uvec2 subBlockScaleMin(const in BLOCK_HANDLE h, uint s) {
  if (s < 4u) return uvec2(blockByte(h, 4u + s) & 63u, blockByte(h, 8u + s) & 63u);
  const uint low = blockByte(h, 8u + s);
  return uvec2((low & 0xFu) | ((blockByte(h, s) >> 6) << 4), (low >> 4) | ((blockByte(h, 4u + s) >> 6) << 4));
}
#endif

float blockElement(const in BLOCK_HANDLE h, uint c) {
#if defined(WEIGHT_Q8_0)
  return blockF16(h, 0u) * float(int(blockByte(h, 2u + c) << 24) >> 24);
#elif defined(WEIGHT_Q4_0)
  const uint b = blockByte(h, 2u + (c & 15u));
  return blockF16(h, 0u) * (float(c < 16u ? b & 0xFu : b >> 4) - 8.0);
#elif defined(WEIGHT_Q4_K) || defined(WEIGHT_Q5_K)
  // Sub-block s = c / 32 reads the low (even s) or high (odd s) nibble of byte c % 32 of the
  // 32-byte group s / 2; Q5_K adds 16 where bit s of high-bit byte c % 32 is set.
  const uint s = c >> 5, e = c & 31u;
  const uvec2 sm = subBlockScaleMin(h, s);
#if defined(WEIGHT_Q4_K)
  const uint nibbles = 16u;
#else
  const uint nibbles = 48u;
#endif
  const uint b = blockByte(h, nibbles + 32u * (s >> 1) + e);
  uint q = (s & 1u) == 0u ? b & 0xFu : b >> 4;
#if defined(WEIGHT_Q5_K)
  q += ((blockByte(h, 16u + e) >> s) & 1u) << 4;
#endif
  precise float v = blockF16(h, 0u) * float(sm.x) * float(q) - blockF16(h, 2u) * float(sm.y);  // two roundings
  return v;
#else  // Q6_K: in half hf, quarter p, element i: the low (p < 2) or high nibble of low-bit byte
       // 64 hf + i (+ 32 for odd p) and bits 2p, 2p + 1 of high-bit byte 128 + 32 hf + i, minus 32,
       // times d times the int8 scale of its 16 elements (byte 192 + c / 16).
  const uint hf = c >> 7, p = (c >> 5) & 3u, i = c & 31u;
  const uint low = blockByte(h, 64u * hf + i + 32u * (p & 1u));
  const uint nibble = p < 2u ? low & 0xFu : low >> 4;
  const uint top = (blockByte(h, 128u + 32u * hf + i) >> (2u * p)) & 3u;
  const float scale = float(int(blockByte(h, 192u + (c >> 4)) << 24) >> 24);
  return blockF16(h, 208u) * scale * float(int(nibble | (top << 4)) - 32);
#endif
}

#endif
