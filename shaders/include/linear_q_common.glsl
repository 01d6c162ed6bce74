// Shared by linear's block-format weight kernels (linear_q_matvec.comp, linear_q_tiled.comp): the
// bindings (x as ELEM, W as 32-bit words), matmul_common.glsl's output side, the weight decoding
// (weight_formats.glsl), x's loads and the NaN report. MatmulParams' bOffset and bStrideRow are
// in bytes. Spec constant 4 (ALIGNED_A): x's offset and row stride are multiples of 4 elements.
#ifndef VKATTN_LINEAR_Q_COMMON_GLSL
#define VKATTN_LINEAR_Q_COMMON_GLSL
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { MatmulParams p; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B { uint W_WORDS[]; };
// The same x seen as vec4s, read when ALIGNED_A: one 16-byte load instead of four scalar gathers.
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A4 { ELEM4 a4[]; };
// matmul_common.glsl's float-weight NaN report names b[]; these kernels never call it (their own
// is blameWeightNan below), so b[] is only the weight words under another type.
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer BFloats { float b[]; };
#include "matmul_common.glsl"
#include "weight_formats.glsl"

// x[m, k .. k + 3] (k a multiple of 4; a unit's four columns never straddle its two groups).
vec4 x4(uint m, uint k) {
  const uint i = aIndex(0u, m, k);
  if (ALIGNED_A) return vec4(a4[i >> 2]);
  return vec4(float(a[i]), float(a[i + 1u]), float(a[i + 2u]), float(a[i + 3u]));
}

uint weightRowByte(uint n) { return p.bOffset + n * p.bStrideRow; }

// Output (m, n) came out NaN before its activation: blames bias (bit 2) if bias[n] is NaN, else x
// (bit 0) and / or W (bit 1) if row m of x or row n of W holds a NaN. Walks K, then K / UNIT
// units (the runtime budgets both loops).
uint blameWeightNan(uint m, uint n) {
  if (p.hasBias != 0u && isnan(float(bias[p.biasOffset + n]))) return 4u;
  bool nanX = false;
  for (uint k = 0u; k < p.k; ++k) nanX = nanX || isnan(float(a[aIndex(0u, m, k)]));
  return (nanX ? 1u : 0u) | (weightRowHasNan(weightRowByte(n), p.k) ? 2u : 0u);
}

#endif
