#version 450
// Storage: f32, f16
// Second half of the naive attention path: out[b, h, i, :] = P[b, h, i, :] V[b, h / kvGroup] with P
// the softmax-ed scores ([batch, heads, lq, lk] f32, contiguous). One invocation per (b, h, i, 4
// output features) loops over the lk keys, so lk must stay under the driver's loop limit.
// Bindings: 0 P (f32, read), 1 v (ELEM, read), 2 out (ELEM, write), 3 status.
// Push: AttentionParams. Spec: attention_common.glsl ids (0 workgroup, 2 DV). Dispatch: one
// invocation per (b, h, i, d4), flat over x then y. A NaN in v sets status bit 2.
// Tolerance (tests): as attention_rows.comp.
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { AttentionParams p; };
layout(std430, set = 0, binding = ATTN_PV_BINDING_P) readonly buffer P { float probs[]; };
layout(std430, set = 0, binding = ATTN_PV_BINDING_V) readonly buffer V { ELEM v[]; };
layout(std430, set = 0, binding = ATTN_PV_BINDING_O) writeonly buffer O { ELEM o[]; };
#define ATTN_BIAS_BINDING ATTN_PV_BINDING_STATUS  // unused here (no mask flags): any declared binding
#define ATTN_KEEP_BINDING ATTN_PV_BINDING_STATUS  // unused here (no mask flags): any declared binding
#define ATTN_KEYLEN_BINDING ATTN_PV_BINDING_STATUS  // unused here (no mask flags): any declared binding
#define ATTN_SINKS_BINDING ATTN_PV_BINDING_STATUS  // unused here: any declared binding
#define ATTN_ALIBI_BINDING ATTN_PV_BINDING_STATUS  // unused here: any declared binding
#define ATTN_SEQS_BINDING ATTN_PV_BINDING_STATUS  // unused here: any declared binding
#include "attention_common.glsl"
STATUS_BUFFER(ATTN_PV_BINDING_STATUS)

void main() {
  const uint index = flatGroupIndex() * WG_SIZE + gl_LocalInvocationID.x;
  if (index >= p.batch * p.heads * p.lq * DV4) return;
  const uint d4 = index % DV4;
  const uint i = (index / DV4) % p.lq;
  const uint h = (index / DV4 / p.lq) % p.heads;
  const uint b = index / DV4 / p.lq / p.heads;
  const uint kvh = h / p.kvGroup;
  const uint pRow = ((b * p.heads + h) * p.lq + i) * p.lk;
  const uint vBase = p.vOffset + b * p.vStrideB + kvh * p.vStrideH;
  vec4 acc = vec4(0.0);
  for (uint j = 0; j < p.lk; ++j) acc = fma(vec4(probs[pRow + j]), LOAD_HEAD4(v, vBase + j * p.vStrideL, d4, DV), acc);
  if (any(isnan(acc))) atomicOr(status[p.statusSlot], 4u);
  STORE_HEAD4(o, p.oOffset + b * p.oStrideB + h * p.oStrideH + i * p.oStrideL, d4, DV, acc);
}
