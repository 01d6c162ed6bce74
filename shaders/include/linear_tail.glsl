// A step over linear()'s whole output rows, run by the matrix-vector kernel's last workgroup to
// finish (last_workgroup.glsl), so that a decoded token's step after a product costs no dispatch
// of its own (MATMUL_SPEC_TAIL, LinearTailParams in push_constants.h):
//  LINEAR_TAIL_ROPE_APPEND: y holds a decoder step's stacked q/k/v rows (row m of x is (b, l) =
//    (m / seq, m % seq)); rope_append_row.glsl normalizes and rotates q in place and writes the
//    rotated k and the v into the key/value cache;
//  LINEAR_TAIL_POST_NORM: y = residual + y / sqrt(mean y^2 + eps) * w, row by row (a post-norm
//    model's x + norm(sublayer), as rmsNorm() with a residual computes it); the product itself
//    then adds no residual.
// One workgroup does the step, as the step's own kernel would for one row (rope_append.comp, a
// workgroup per row; rms_norm.comp, a workgroup per long row), so the runtime takes a tail for few
// rows only. Include after matmul_common.glsl, whose c the kernel declares coherent
// (C_QUALIFIER), so the last workgroup reads what the others stored.
// Bindings: 7 the finish counter, 8 LinearTailParams, 9 keys, 10 values (ELEM, written), 11 the
// phase steps (uvec2), 12 the query heads' norm or the post-norm's weight, 13 the key heads' norm
// (ELEM), 14 RoPE's positions (int). NaN in a norm's weight sets status bit 5, in the post-norm's
// residual bit 6; a RoPE position outside the caches bit 6.
#ifndef VKATTN_LINEAR_TAIL_GLSL
#define VKATTN_LINEAR_TAIL_GLSL

layout(constant_id = MATMUL_SPEC_TAIL) const uint TAIL = LINEAR_TAIL_NONE;

layout(std430, set = 0, binding = MATMUL_BINDING_TAIL_PARAMS) readonly buffer TailParams { LinearTailParams tail; };
layout(std430, set = 0, binding = MATMUL_BINDING_TAIL_KEYS) writeonly buffer TailKeys { ELEM tailKeys[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_TAIL_VALUES) writeonly buffer TailValues { ELEM tailValues[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_TAIL_PHASE) readonly buffer TailPhase { uvec2 tailPhase[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_TAIL_NORM) readonly buffer TailNorm { ELEM tailNorm[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_TAIL_K_NORM) readonly buffer TailKNorm { ELEM tailKNorm[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_TAIL_POSITIONS) readonly buffer TailPositions { int tailPositions[]; };

#define ROPE_ROW_QKV c
#define ROPE_ROW_KEYS tailKeys
#define ROPE_ROW_VALUES tailValues
#define ROPE_ROW_PHASE tailPhase
#define ROPE_ROW_Q_NORM tailNorm
#define ROPE_ROW_K_NORM tailKNorm
#define ROPE_ROW_POSITIONS tailPositions
#include "rope_append_row.glsl"
#define LAST_WORKGROUP_BINDING MATMUL_BINDING_TAIL_COUNTER
#include "last_workgroup.glsl"

// Row m of y (p.n outputs) = residual + RMSNorm(y) * w. Returns the NaN report's bits.
uint postNormRow(uint m) {
  const uint row = p.cOffset + m * p.cStrideM, resRow = tail.resOffset + m * tail.resStrideM;
  float squares = 0.0;
  for (uint n = gl_LocalInvocationIndex; n < p.n; n += WG_SIZE) {
    const float y = float(c[row + n]);
    squares += y * y;
  }
  const float scale = inversesqrt(workgroupSum(squares) / float(p.n) + tail.normEps);
  uint bits = 0u;
  for (uint n = gl_LocalInvocationIndex; n < p.n; n += WG_SIZE) {
    const float w = float(tailNorm[tail.normOffset + n]), r = float(res[resRow + n]);
    if (isnan(w)) bits |= 32u;
    if (isnan(r)) bits |= 64u;
    c[row + n] = TO_ELEM(r + float(c[row + n]) * scale * w);
  }
  return bits;
}

// Every invocation of each of the dispatch's `workgroups` workgroups calls this after storing its
// outputs, in uniform control flow.
void finishRows(uint workgroups) {
  if (TAIL == LINEAR_TAIL_NONE || !finishedLast(workgroups)) return;
  uint bits = 0u;
  for (uint m = 0u; m < p.m; ++m) {
    if (TAIL == LINEAR_TAIL_ROPE_APPEND) {
      const uint row = ropeAppendRow(tail.rope, m / tail.rope.seq, m % tail.rope.seq);
      bits |= ((row & 8u) != 0u ? 32u : 0u) | ((row & 16u) != 0u ? 64u : 0u);
    } else {
      bits |= postNormRow(m);
    }
  }
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}

#endif
