#version 450
// Embedding lookup from a table in a ggml block format (weight_formats.glsl), decoded on the
// device: out[t, :] = scale * decode(table row ids[t]) for each of `tokens` ids, in f32: a
// language model's token rows gathered without the host. An id outside [0, vocab) is never read:
// its row is written as zeros and status bit 0 is set (the runtime names "ids"); NaN decoded from
// the table sets bit 1.
// Bindings as embedding.comp: 0 table (32-bit words, rows of dim / BLOCK_ELEMENTS blocks), 1 ids
// (int), 2 unused, 3 out (f32 [tokens, dim]), 4 status. Push: EmbeddingParams (no positions).
// Spec: 0 workgroup. Dispatch: one invocation per (token, unit of UNIT weights), flat over x then y.
// Tolerance (tests): exact (the host's ggml decoding, times scale, in f32).
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(push_constant) uniform Push { EmbeddingParams p; };
layout(std430, set = 0, binding = EMBEDDING_BINDING_TABLE) readonly buffer T { uint W_WORDS[]; };
layout(std430, set = 0, binding = EMBEDDING_BINDING_IDS) readonly buffer Ids { int ids[]; };
layout(std430, set = 0, binding = EMBEDDING_BINDING_OUT) writeonly buffer O { float o[]; };
STATUS_BUFFER(EMBEDDING_BINDING_STATUS)

#include "weight_formats.glsl"

void main() {
  const uint units = p.dim / UNIT;
  const uint i = flatGroupIndex() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i >= p.tokens * units) return;
  const uint t = i / units, u = i % units;
  const int id = ids[t];
  const bool valid = id >= 0 && uint(id) < p.vocab;
  const uint rowByte = uint(valid ? id : 0) * (p.dim / BLOCK_ELEMENTS * BLOCK_BYTES);
  const Unit h = loadUnit(rowByte, u);
  const uint first = t * p.dim;
  bool nan = false;
  for (uint j = 0u; j < PIECES; ++j) {
    vec4 lo, hi;
    decodePiece(h, j, lo, hi);
    nan = nan || any(isnan(lo)) || any(isnan(hi));
    if (!valid) lo = hi = vec4(0.0);
    [[unroll]] for (uint e = 0u; e < 4u; ++e) {
      o[first + unitElement(u, 4u * j + e)] = p.scale * lo[e];
      o[first + unitElement(u, UNIT / 2u + 4u * j + e)] = p.scale * hi[e];
    }
  }
  const uint bits = (valid ? 0u : 1u) | (nan && valid ? 2u : 0u);
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
