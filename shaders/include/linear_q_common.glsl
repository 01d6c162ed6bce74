// Shared by linear's block-format weight kernels (linear_q_matvec.comp, linear_q_tiled.comp): the
// bindings (x as ELEM, W as 32-bit words), matmul_common.glsl's output side, the weight decoding
// (weight_formats.glsl) and the NaN report. MatmulParams' bOffset and bStrideRow are in bytes.
#ifndef VKATTN_LINEAR_Q_COMMON_GLSL
#define VKATTN_LINEAR_Q_COMMON_GLSL
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { MatmulParams p; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B { uint W_WORDS[]; };
#define WEIGHT_BLOCKS
#include "matmul_common.glsl"
#include "weight_formats.glsl"

uint weightRowByte(uint n) { return p.bOffset + n * p.bStrideRow; }

// Output (m, n) came out NaN before its activation: blames bias (bit 2) if bias[n] is NaN, else x
// (bit 0) and / or W (bit 1) if row m of x or row n of W holds a NaN. Walks K, then K / UNIT
// units (the runtime budgets both loops).
uint blameNan(uint m, uint n) {
  if (p.hasBias != 0u && isnan(float(bias[p.biasOffset + n]))) return 4u;
  bool nanX = false;
  for (uint k = 0u; k < p.k; ++k) nanX = nanX || isnan(float(a[aIndex(0u, m, k)]));
  return (nanX ? 1u : 0u) | (weightRowHasNan(weightRowByte(n), p.k) ? 2u : 0u);
}

#endif
