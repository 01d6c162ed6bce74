#version 450
// Additive (Bahdanau) attention scores, seed 001: score(i, j) = v^T tanh(qp[i] + kp[j]) with
// qp = query W_q^T and kp = key W_k^T from additive_project.comp, plus the masks: additive bias,
// i32 keep mask (0 removes), per-batch key lengths, causal (j <= i). Removed keys score -inf.
// Bindings: 0 qp [B, Lq, A], 1 kp [B, Lk, A], 2 v [A], 3 bias, 4 keep, 5 key lengths (qp when
// absent), 6 scores [B, Lq, Lk] (write), 7 status. All f32 except keep and key lengths (i32).
// Push: AdditiveParams. Spec: 0 workgroup size. Dispatch: one invocation per (b, i, j), flat over
// x then y; it loops over A. A NaN in v sets status bit 0, in bias bit 1.
// Tolerance (tests): final output |out - ref| <= 2e-5 + 1e-4 |ref|; weights 1e-5 + 1e-4 |ref|.
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(push_constant) uniform Push { AdditiveParams p; };
layout(std430, set = 0, binding = ADDITIVE_SCORES_BINDING_QP) readonly buffer QP { float qp[]; };
layout(std430, set = 0, binding = ADDITIVE_SCORES_BINDING_KP) readonly buffer KP { float kp[]; };
layout(std430, set = 0, binding = ADDITIVE_SCORES_BINDING_VEC) readonly buffer Vec { float vvec[]; };
layout(std430, set = 0, binding = ADDITIVE_SCORES_BINDING_BIAS) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = ADDITIVE_SCORES_BINDING_KEEP) readonly buffer Keep { int keep[]; };
layout(std430, set = 0, binding = ADDITIVE_SCORES_BINDING_KEYLEN) readonly buffer KeyLengths { int keyLengths[]; };
layout(std430, set = 0, binding = ADDITIVE_SCORES_BINDING_SCORES) writeonly buffer Scores { float scores[]; };
STATUS_BUFFER(ADDITIVE_SCORES_BINDING_STATUS)

void main() {
  const uint index = flatGroupIndex() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (index >= p.batch * p.lq * p.lk) return;
  const uint j = index % p.lk;
  const uint i = (index / p.lk) % p.lq;
  const uint b = index / p.lk / p.lq;
  bool visible = true;
  if (p.causal != 0 && j > i) visible = false;
  if (p.hasKeyLengths != 0 && int(j) >= keyLengths[b]) visible = false;
  if (p.hasKeep != 0 && keep[b * p.keepStrideB + i * p.keepStrideL + j] == 0) visible = false;
  float s = 0.0;
  bool nanV = false, nanBias = false;
  const uint qRow = (b * p.lq + i) * p.attnDim, kRow = (b * p.lk + j) * p.attnDim;
  for (uint a = 0; a < p.attnDim; ++a) {
    const float va = vvec[a];
    nanV = nanV || isnan(va);
    s = fma(va, tanh(qp[qRow + a] + kp[kRow + a]), s);
  }
  if (p.hasBias != 0) {
    const float bv = bias[b * p.biasStrideB + i * p.biasStrideL + j];
    nanBias = isnan(bv);
    s += bv;
  }
  if (nanV || nanBias) atomicOr(status[p.statusSlot], (nanV ? 1u : 0u) | (nanBias ? 2u : 0u));
  scores[index] = visible ? s : -1.0 / 0.0;
}
