#version 450
// A decoder step after its stacked q/k/v projection, in one dispatch: RoPE on the queries in
// place, RoPE on the keys into the key cache, the values copied into the value cache (what
// rope.comp twice and a copy would do in three), with the query and key heads first normalized
// by RMSNorm where the model has head norms (Qwen3, Gemma 3). The rotation is rope.comp's
// (rope_angle.glsl: exact phases at any position), at positions positionOffset + l.
// Bindings: 0 q, k and v (ELEM; q read and written), 1 keys out, 2 values out (ELEM), 3 step
// (uvec2), 4 status, 5 and 6 the query and key heads' norm weights (ELEM [headDim]).
// Push: RopeAppendParams (push_constants.h). Spec: 0 workgroup size (at least headDim / 2).
// Dispatch: one workgroup per (b, l), flat over x then y; invocation i owns feature pair i of
// every head: it rotates that pair in every query and key head and copies the same two features
// of every value head, so each angle's sin and cos are computed once. With head norms a head's
// pairs meet through subgroupAdd and shared memory (two barriers a head). Loops: qHeads + 2
// kvHeads steps (and qHeads + kvHeads more with head norms).
// NaN in q, k, v sets status bits 0, 1, 2; in the norm weights 3.
// Tolerance (tests/test_rope.cpp): rope.comp's, |y - ref| <= 2e-6 (|x| <= 1) for f32, 2e-3 for
// f16; values copied exactly; with head norms RMSNorm's 1e-5 relative on top.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"
#include "rope_angle.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_WORKGROUP_SIZE) const uint WG_SIZE = 64;
layout(push_constant) uniform Push { RopeAppendParams p; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_QKV) buffer Qkv { ELEM qkv[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_KEYS) writeonly buffer Keys { ELEM keys[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_VALUES) writeonly buffer Values { ELEM values[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_PHASE_STEP) readonly buffer Step { uvec2 phaseStep[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_Q_NORM) readonly buffer QNorm { ELEM qNorm[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_K_NORM) readonly buffer KNorm { ELEM kNorm[]; };
STATUS_BUFFER(ROPE_APPEND_BINDING_STATUS)

shared float partialSquares[WG_SIZE];  // [subgroup]

// The head's RMSNorm scale 1 / sqrt(mean x^2 + eps) from each invocation's a^2 + c^2 (every
// invocation of the workgroup calls this, in uniform control flow).
float headNormScale(float squares) {
  const float s = subgroupAdd(squares);
  if (subgroupElect()) partialSquares[gl_SubgroupID] = s;
  barrier();
  float total = 0.0;
  for (uint i = 0u; i < gl_NumSubgroups; ++i) total += partialSquares[i];
  barrier();  // read before the next head's sums land
  return inversesqrt(total / float(p.headDim) + p.headNormEps);
}

// Rotates the pair (a, c) of features i0, i1 by the angle (cs, sn).
vec2 rotate(float a, float c, float cs, float sn) { return vec2(a * cs - c * sn, c * cs + a * sn); }

void main() {
  const uint pair = gl_LocalInvocationID.x, halfDim = p.headDim / 2u;
  const uint row = flatGroupIndex();  // (b, l)
  if (row >= p.batch * p.seq) return;  // uniform per workgroup
  const uint l = row % p.seq, b = row / p.seq;
  const bool mine = pair < halfDim;  // invocations past the head's pairs only join the sums
  const bool norms = p.hasHeadNorms != 0u;
  const uint rotaryPairs = p.rotaryDim / 2u;
  uint i0 = 0u, i1 = 0u;
  float cs = 1.0, sn = 0.0;
  if (mine) {
    ropePairFeatures(pair, rotaryPairs, p.rotaryDim, p.interleaved != 0u, i0, i1);
    if (pair < rotaryPairs) {
      const float angle = rotationAngle(p.positionOffset + int(l), phaseStep[pair]);
      cs = cos(angle);
      sn = sin(angle);
    }
  }
  uint bits = 0u;
  vec2 qw = vec2(1.0), kw = vec2(1.0);
  if (norms && mine) {
    qw = vec2(float(qNorm[i0]), float(qNorm[i1]));
    kw = vec2(float(kNorm[i0]), float(kNorm[i1]));
    if (any(isnan(qw)) || any(isnan(kw))) bits |= 8u;
  }
  uint at = p.qOffset + b * p.qStrideB + l * p.qStrideL;
  for (uint h = 0u; h < p.qHeads; ++h, at += p.qStrideH) {
    vec2 x = mine ? vec2(float(qkv[at + i0]), float(qkv[at + i1])) : vec2(0.0);
    if (any(isnan(x))) bits |= 1u;
    if (norms) x *= headNormScale(dot(x, x)) * qw;
    if (mine) {
      const vec2 y = rotate(x.x, x.y, cs, sn);
      qkv[at + i0] = TO_ELEM(y.x);
      qkv[at + i1] = TO_ELEM(y.y);
    }
  }
  uint k = p.kOffset + b * p.kStrideB + l * p.kStrideL;
  uint v = p.vOffset + b * p.vStrideB + l * p.vStrideL;
  uint kOut = p.keysOffset + b * p.keysStrideB + l * p.keysStrideL;
  uint vOut = p.valuesOffset + b * p.valuesStrideB + l * p.valuesStrideL;
  for (uint h = 0u; h < p.kvHeads;
       ++h, k += p.kStrideH, v += p.vStrideH, kOut += p.keysStrideH, vOut += p.valuesStrideH) {
    vec2 x = mine ? vec2(float(qkv[k + i0]), float(qkv[k + i1])) : vec2(0.0);
    if (any(isnan(x))) bits |= 2u;
    if (norms) x *= headNormScale(dot(x, x)) * kw;
    if (mine) {
      const vec2 y = rotate(x.x, x.y, cs, sn);
      keys[kOut + i0] = TO_ELEM(y.x);
      keys[kOut + i1] = TO_ELEM(y.y);
      const float v0 = float(qkv[v + i0]), v1 = float(qkv[v + i1]);  // exact for f16 too
      if (isnan(v0) || isnan(v1)) bits |= 4u;
      values[vOut + i0] = TO_ELEM(v0);
      values[vOut + i1] = TO_ELEM(v1);
    }
  }
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
