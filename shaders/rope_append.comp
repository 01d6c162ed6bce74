#version 450
// A decoder step after its stacked q/k/v projection, in one dispatch: RoPE on the queries in
// place, RoPE on the keys into the key cache, the values copied into the value cache (what
// rope.comp twice and a copy would do in three). The rotation is rope.comp's (rope_angle.glsl:
// exact phases at any position), at positions positionOffset + l.
// Bindings: 0 q, k and v (ELEM; q read and written), 1 keys out, 2 values out (ELEM), 3 step
// (uvec2), 4 status. Push: RopeAppendParams (push_constants.h). Spec: 0 workgroup size.
// Dispatch: one invocation per (b, l, pair), pairs = headDim / 2, spread over x then y; it
// rotates that pair in every query and key head and copies the same two features of every value
// head, so each angle's sin and cos are computed once. Loops: qHeads + 2 kvHeads steps.
// NaN in q, k, v sets status bits 0, 1, 2.
// Tolerance (tests/test_rope.cpp): rope.comp's, |y - ref| <= 2e-6 (|x| <= 1) for f32, 2e-3 for
// f16; values copied exactly.
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"
#include "rope_angle.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(push_constant) uniform Push { RopeAppendParams p; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_QKV) buffer Qkv { ELEM qkv[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_KEYS) writeonly buffer Keys { ELEM keys[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_VALUES) writeonly buffer Values { ELEM values[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_PHASE_STEP) readonly buffer Step { uvec2 phaseStep[]; };
STATUS_BUFFER(ROPE_APPEND_BINDING_STATUS)

void main() {
  const uint halfDim = p.headDim / 2u;
  const uint index = flatGroupIndex() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (index >= p.batch * p.seq * halfDim) return;
  const uint pair = index % halfDim, rest = index / halfDim;
  const uint l = rest % p.seq, b = rest / p.seq;
  const uint rotaryPairs = p.rotaryDim / 2u;
  uint i0, i1;
  ropePairFeatures(pair, rotaryPairs, p.rotaryDim, p.interleaved != 0u, i0, i1);
  float cs = 1.0, sn = 0.0;
  if (pair < rotaryPairs) {
    const float angle = rotationAngle(p.positionOffset + int(l), phaseStep[pair]);
    cs = cos(angle);
    sn = sin(angle);
  }
  uint bits = 0u;
  uint at = p.qOffset + b * p.qStrideB + l * p.qStrideL;
  for (uint h = 0u; h < p.qHeads; ++h, at += p.qStrideH) {
    const float a = float(qkv[at + i0]), c = float(qkv[at + i1]);
    if (isnan(a) || isnan(c)) bits |= 1u;
    qkv[at + i0] = TO_ELEM(a * cs - c * sn);
    qkv[at + i1] = TO_ELEM(c * cs + a * sn);
  }
  uint k = p.kOffset + b * p.kStrideB + l * p.kStrideL;
  uint v = p.vOffset + b * p.vStrideB + l * p.vStrideL;
  uint kOut = p.keysOffset + b * p.keysStrideB + l * p.keysStrideL;
  uint vOut = p.valuesOffset + b * p.valuesStrideB + l * p.valuesStrideL;
  for (uint h = 0u; h < p.kvHeads;
       ++h, k += p.kStrideH, v += p.vStrideH, kOut += p.keysStrideH, vOut += p.valuesStrideH) {
    const float a = float(qkv[k + i0]), c = float(qkv[k + i1]);
    const float v0 = float(qkv[v + i0]), v1 = float(qkv[v + i1]);  // exact for f16 too
    if (isnan(a) || isnan(c)) bits |= 2u;
    if (isnan(v0) || isnan(v1)) bits |= 4u;
    keys[kOut + i0] = TO_ELEM(a * cs - c * sn);
    keys[kOut + i1] = TO_ELEM(c * cs + a * sn);
    values[vOut + i0] = TO_ELEM(v0);
    values[vOut + i1] = TO_ELEM(v1);
  }
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
