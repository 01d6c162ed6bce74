#version 450
// Storage: f32, f16
// Attention scores for the naive path and for attention weights: one invocation per (b, selected
// head hh, query row i, key j) writes the masked logit scale * q.k, softcapped, + ALiBi + bias
// (natural units, -inf where masked) to S[b, hh, i, j]; attentionWeights then runs the softmax
// row op over S in place.
// Bindings (kernel_interface.h, ATTN_SCORES_BINDING_*): q, k (ELEM, read), S (f32, write), head
// index (i32 [selected heads] -> query head), bias (f32), keep mask (i32), key lengths (i32),
// status, ALiBi slopes (f32 [Hq] or [B, Hq]). Push: AttentionParams (o* strides describe S, heads =
// selected heads; no V is read). Spec: attention_common.glsl (workgroup, DK, mask flags, softcap,
// ALiBi).
// Dispatch: one invocation per S element, flat over x then y. NaN in q, k, bias sets status bits
// 0, 1, 3 (the slot's names are q, k, v, bias).
// Tolerance (tests): the weights after the softmax, 1e-5 abs + 1e-4 rel of the reference (f32).
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { AttentionParams p; };
layout(std430, set = 0, binding = ATTN_SCORES_BINDING_Q) readonly buffer Q { ELEM q[]; };
layout(std430, set = 0, binding = ATTN_SCORES_BINDING_K) readonly buffer K { ELEM k[]; };
layout(std430, set = 0, binding = ATTN_SCORES_BINDING_S) writeonly buffer S { float scores[]; };
layout(std430, set = 0, binding = ATTN_SCORES_BINDING_HEADS) readonly buffer Heads { int headIndex[]; };
#define ATTN_BIAS_BINDING ATTN_SCORES_BINDING_BIAS
#define ATTN_KEEP_BINDING ATTN_SCORES_BINDING_KEEP
#define ATTN_KEYLEN_BINDING ATTN_SCORES_BINDING_KEYLEN
#define ATTN_SINKS_BINDING ATTN_SCORES_BINDING_STATUS  // sinks are refused on this path: any declared binding
#define ATTN_ALIBI_BINDING ATTN_SCORES_BINDING_ALIBI
#define ATTN_SEQS_BINDING ATTN_SCORES_BINDING_ALIBI  // unused here (no VARLEN): any declared binding
#include "attention_common.glsl"
STATUS_BUFFER(ATTN_SCORES_BINDING_STATUS)

void main() {
  const uint index = flatGroupIndex() * WG_SIZE + gl_LocalInvocationID.x;
  if (index >= p.batch * p.heads * p.lq * p.lk) return;
  const uint j = index % p.lk;
  const uint i = (index / p.lk) % p.lq;
  const uint hh = (index / p.lk / p.lq) % p.heads;
  const uint b = index / p.lk / p.lq / p.heads;
  const uint h = uint(headIndex[hh]);
  const uint kvh = h / p.kvGroup;
  const uint qRow = p.qOffset + b * p.qStrideB + h * p.qStrideH + i * p.qStrideL;
  const uint kRow = p.kOffset + b * p.kStrideB + kvh * p.kStrideH + j * p.kStrideL;
  float dotValue = 0.0;
  [[unroll]] for (uint d = 0; d < DK; ++d) dotValue = fma(float(q[qRow + d]), float(k[kRow + d]), dotValue);
  int lo, hi;
  keyRange(b, i, i, lo, hi);
  float logit = dotValue * (p.scaleLog2 * LN2);
  uint bits = 0u;
  if (isnan(logit)) {
    bool nanQ = false;
    [[unroll]] for (uint d = 0; d < DK; ++d) nanQ = nanQ || isnan(float(q[qRow + d]));
    bits |= nanQ ? 1u : 2u;
  }
  if (!keyVisible(b, h, i, int(j), lo, hi)) {
    logit = NEG_INF;
  } else {
    logit = shapeLogit(logit * LOG2E, b, h, i, int(j)) * LN2;
    if (HAS_BIAS) {
      const float bb = biasAt(b, h, i, int(j));
      if (isnan(bb)) bits |= 8u;
      logit += bb;
    }
  }
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
  const uint out_ = p.oOffset + b * p.oStrideB + hh * p.oStrideH + i * p.oStrideL + j;
  scores[out_] = logit;
}
