#version 450
// Storage: f32, f16
// Embedding lookup: out[t, :] = scale * table[ids[t], :] (+ positions[positionOffset + t % seq, :]) for
// each of `tokens` ids. An id outside [0, vocab) is never read: the row is written as zeros and
// status bit 0 is set (the runtime names "ids"). NaN met in table / positions sets bit 1 / 2.
// Bindings: 0 table (ELEM [vocab, dim]), 1 ids (int), 2 positions (ELEM [P, dim]; any buffer when
// unused), 3 out (ELEM [tokens, dim], f32 with OUT_F32: an f16 table's rows as a language model's
// first f32 activations); 0, 2, 3 also viewed as 4-vectors, used when VEC4 (dim % 4 == 0); 4
// status. Push: EmbeddingParams. Spec: 0 workgroup, 1 VEC4.
// Dispatch: one invocation per (token, 4 features), flat over x then y.
// Tolerance (tests): exact (a copy, and one fp32 add with positions, then the storage rounding).
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"
#include "elementwise.glsl"

#ifdef OUT_F32
#define OUT_ELEM float
#define OUT_ELEM4 vec4
#else
#define OUT_ELEM ELEM
#define OUT_ELEM4 ELEM4
#endif

layout(push_constant) uniform Push { EmbeddingParams p; };
layout(std430, set = 0, binding = EMBEDDING_BINDING_TABLE) readonly buffer T { ELEM table[]; };
layout(std430, set = 0, binding = EMBEDDING_BINDING_TABLE) readonly buffer T4 { ELEM4 table4[]; };
layout(std430, set = 0, binding = EMBEDDING_BINDING_IDS) readonly buffer Ids { int ids[]; };
layout(std430, set = 0, binding = EMBEDDING_BINDING_POSITIONS) readonly buffer P { ELEM positions[]; };
layout(std430, set = 0, binding = EMBEDDING_BINDING_POSITIONS) readonly buffer P4 { ELEM4 positions4[]; };
layout(std430, set = 0, binding = EMBEDDING_BINDING_OUT) writeonly buffer O { OUT_ELEM o[]; };
layout(std430, set = 0, binding = EMBEDDING_BINDING_OUT) writeonly buffer O4 { OUT_ELEM4 o4[]; };
STATUS_BUFFER(EMBEDDING_BINDING_STATUS)

void main() {
  const uint dim4 = (p.dim + 3) / 4;
  const uint i = vec4Index();
  if (i >= p.tokens * dim4) return;
  const uint t = i / dim4, d = 4 * (i % dim4);
  const int id = ids[t];
  const bool valid = id >= 0 && uint(id) < p.vocab;
  const uint row = uint(valid ? id : 0) * p.dim;
  const uint prow = (p.positionOffset + t % p.seq) * p.dim;
  vec4 v = vec4(0.0), pos = vec4(0.0);
  if (VEC4) {
    if (valid) v = vec4(table4[(row + d) / 4]);
    if (p.hasPositions != 0) pos = vec4(positions4[(prow + d) / 4]);
  } else {
    [[unroll]] for (uint e = 0; e < 4; ++e) {
      if (d + e < p.dim) {
        if (valid) v[e] = float(table[row + d + e]);
        if (p.hasPositions != 0) pos[e] = float(positions[prow + d + e]);
      }
    }
  }
  const bool nanT = any(isnan(v)), nanP = any(isnan(pos));
  v = p.scale * v + pos;
  if (VEC4) {
    o4[(t * p.dim + d) / 4] = OUT_ELEM4(v);
  } else {
    [[unroll]] for (uint e = 0; e < 4; ++e)
      if (d + e < p.dim) o[t * p.dim + d + e] = OUT_ELEM(v[e]);
  }
  const uint bits = (valid ? 0u : 1u) | (nanT ? 2u : 0u) | (nanP ? 4u : 0u);
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
