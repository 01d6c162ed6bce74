#version 450
// encode_storage: f32 values stored in a K/V storage format (kv_formats.glsl's layouts): f16,
// bf16 (round to nearest even, NaN kept), Q8_0 or Q4_0 (blocks of 32: an f16 scale, then the
// values, with the rules of the host encoder in core/storage_formats). Elements x[xElement ..
// xElement + count) go to y's elements yElement.. (a block boundary for the block formats).
// Bindings: 0 x (f32, read), 1 y (32-bit words, read and written), 2 status.
// Push: EncodeParams. Spec: 0 workgroup size. Defines: OUT_F16, OUT_BF16, OUT_Q8_0 or OUT_Q4_0.
// Dispatch: one invocation per 32-bit word of y the range touches, flat over x then y. A word
// that the range shares with its neighbours keeps their bytes (no other invocation writes it).
// A NaN or infinity bound for a block format, or a block scale past f16, sets status bit 0.
// Tolerance (tests): the decoded values are the host encoder's within one quantum (f16: one ulp).
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(push_constant) uniform Push { EncodeParams p; };
layout(std430, set = 0, binding = ENCODE_BINDING_X) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = ENCODE_BINDING_Y) buffer Y { uint y[]; };
STATUS_BUFFER(ENCODE_BINDING_STATUS)

#if defined(OUT_Q8_0) || defined(OUT_Q4_0)
#define BLOCK_FORMAT 1
#include "block_layouts.h"
#if defined(OUT_Q8_0)
const uint BLOCK = Q8_0_BLOCK_ELEMENTS, BLOCK_BYTES = Q8_0_BLOCK_BYTES;
#else
const uint BLOCK = Q4_0_BLOCK_ELEMENTS, BLOCK_BYTES = Q4_0_BLOCK_BYTES;
#endif
const uint ELEMENT_BYTES = 0;
#else
const uint BLOCK = 1;
const uint BLOCK_BYTES = 2;
const uint ELEMENT_BYTES = 2;
#endif

float value(uint e) { return x[p.xElement + e]; }

// f16 bits of v, rounded to nearest even. Past f16's range that rounding gives infinity, which
// some drivers' conversion does not (it saturates at 65504): that case is spelled out.
uint halfBits(float v) {
  if (!isnan(v) && abs(v) >= 65520.0) return ((floatBitsToUint(v) >> 16) & 0x8000u) | 0x7c00u;
  return packHalf2x16(vec2(v, 0.0)) & 0xffffu;
}

uint bf16Bits(float v) {
  const uint bits = floatBitsToUint(v);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (bits >> 16) | 0x40u;
  return (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
}

bool g_bad = false;

#if defined(BLOCK_FORMAT)
uint g_block = 0xffffffffu;  // the block whose scale is cached
float g_scale, g_inverse;

void scaleOf(uint block) {
  if (block == g_block) return;
  g_block = block;
  float amax = 0.0, m = 0.0;
  for (uint i = 0; i < BLOCK; ++i) {
    const float v = value(block * BLOCK + i);
    if (isnan(v) || isinf(v)) g_bad = true;
    if (abs(v) > amax) {
      amax = abs(v);
      m = v;
    }
  }
#if defined(OUT_Q8_0)
  g_scale = amax / 127.0;
#else
  g_scale = m / -8.0;
#endif
  if ((halfBits(g_scale) & 0x7fffu) == 0x7c00u) g_bad = true;  // the scale overflows f16
  g_inverse = g_scale != 0.0 ? 1.0 / g_scale : 0.0;
}

#if defined(OUT_Q4_0)
uint nibble(float v) { return uint(min(15, int(v * g_inverse + 8.5))); }
#endif
#endif

// Byte b of the encoded range.
uint encodedByte(uint b) {
#if defined(BLOCK_FORMAT)
  const uint block = b / BLOCK_BYTES, within = b % BLOCK_BYTES;
  scaleOf(block);
  if (within < 2) return (halfBits(g_scale) >> (8 * within)) & 0xffu;
#if defined(OUT_Q8_0)
  const float q = value(block * BLOCK + within - 2) * g_inverse;
  return uint(int(sign(q) * floor(abs(q) + 0.5))) & 0xffu;  // halves away from zero, as lround
#else
  const uint i = within - 2;
  return nibble(value(block * BLOCK + i)) | (nibble(value(block * BLOCK + i + 16)) << 4);
#endif
#else
  const float v = value(b / 2);
#if defined(OUT_BF16)
  return (bf16Bits(v) >> (8 * (b % 2))) & 0xffu;
#else
  return (halfBits(v) >> (8 * (b % 2))) & 0xffu;
#endif
#endif
}

void main() {
  const uint i = flatGroupIndex() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  const uint first = BLOCK > 1 ? p.yElement / BLOCK * BLOCK_BYTES : p.yElement * ELEMENT_BYTES;
  const uint end = first + (BLOCK > 1 ? p.count / BLOCK * BLOCK_BYTES : p.count * ELEMENT_BYTES);
  const uint word = first / 4 + i;
  if (4 * word >= end) return;
  uint bits = y[word];
  for (uint k = 0; k < 4; ++k) {
    const uint b = 4 * word + k;
    if (b >= first && b < end) bits = (bits & ~(0xffu << (8 * k))) | (encodedByte(b - first) << (8 * k));
  }
  y[word] = bits;
  if (g_bad) atomicOr(status[p.statusSlot], 1u);
}
