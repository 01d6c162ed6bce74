#version 450
// Attention scores for the naive path and for attention weights: one invocation per (b, selected
// head hh, query row i, key j) writes the masked logit scale * q.k + bias (natural units, -inf where
// masked) to S[b, hh, i, j], or with PROBS the probability exp(logit - lse[b, h, i]) recomputed
// from the fused kernel's log-sum-exp (0 where masked or where the whole row is masked).
// Bindings: 0 q, 1 k (ELEM, read), 2 S (f32, write), 3 lse (f32, read; PROBS only), 4 head index
// (i32 [selected heads] -> query head), 5 bias (f32), 6 keep mask (i32), 7 key lengths (i32),
// 8 status. Push: AttentionParams (o* strides describe S, heads = selected heads; no V, so
// vStrideB / vStrideH are lse's batch and head strides).
// Spec: attention_common.glsl (0 workgroup, 1 DK, 3-6 mask flags, 10 PROBS).
// Dispatch: one invocation per S element, flat over x then y. NaN in q, k, bias sets status bits
// 0, 1, 3 (the slot's names are q, k, v, bias).
// Tolerance (tests): probabilities within 1e-5 abs + 1e-4 rel of the reference (f32).
#include "common.glsl"
#include "push_constants.h"

layout(push_constant) uniform Push { AttentionParams p; };
layout(std430, set = 0, binding = 0) readonly buffer Q { ELEM q[]; };
layout(std430, set = 0, binding = 1) readonly buffer K { ELEM k[]; };
layout(std430, set = 0, binding = 2) writeonly buffer S { float scores[]; };
layout(std430, set = 0, binding = 3) readonly buffer Lse { float lse[]; };
layout(std430, set = 0, binding = 4) readonly buffer Heads { int headIndex[]; };
#define ATTN_BIAS_BINDING 5
#define ATTN_KEEP_BINDING 6
#define ATTN_KEYLEN_BINDING 7
#include "attention_common.glsl"
STATUS_BUFFER(8)

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
  } else if (HAS_BIAS) {
    const float bb = biasAt(b, h, i, int(j));
    if (isnan(bb)) bits |= 8u;
    logit += bb;
  }
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
  const uint out_ = p.oOffset + b * p.oStrideB + hh * p.oStrideH + i * p.oStrideL + j;
  if (PROBS) {
    const float rowLse = lse[b * p.vStrideB + h * p.vStrideH + i];
    scores[out_] = (logit == NEG_INF || rowLse == NEG_INF) ? 0.0 : exp(logit - rowLse);
  } else {
    scores[out_] = logit;
  }
}
