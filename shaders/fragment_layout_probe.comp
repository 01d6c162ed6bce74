#version 450
// Which row and column of a fragment each lane's elements hold, as the device lays them out: one
// subgroup loads an accumulator (FM x FN, f32) and an A fragment (FM x FK, FRAG_IN) whose element
// (r, c) holds the number r * columns + c, and writes every element it holds, by lane and index,
// to `out` (kernel_interface.h, PROBE_*). The runtime reads from that whether the accumulator's
// rows can be reduced with shuffles and whether A's layout agrees with it
// (runtime/src/ops/fragment_layout.cpp), and specialises the register softmax of
// attention_coopmat.comp with it. Codes stay below 2^11, exact in f16.
// Spec: 0 workgroup = the subgroup size (one subgroup), FRAG_SPEC_M/N/K in the KHR build.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#include "kernel_interface.h"

#if defined(FRAG_KHR)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define FRAG_IN float16_t
#else
#define FRAG_IN float
#endif
#include "fragment.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(std430, set = 0, binding = PROBE_BINDING_OUT) writeonly buffer Out { uint codes[]; };

shared float sAcc[FM * FN];
shared FRAG_IN sA[FM * FK];

void main() {
  const uint lane = gl_SubgroupInvocationID;
  for (uint x = gl_LocalInvocationIndex; x < FM * FN; x += gl_WorkGroupSize.x) sAcc[x] = float(x);
  for (uint x = gl_LocalInvocationIndex; x < FM * FK; x += gl_WorkGroupSize.x) sA[x] = FRAG_IN(x);
  barrier();
  FragAcc acc;
  FRAG_LOAD_ACC(acc, sAcc, 0, FN);
  FragA a;
  FRAG_LOAD_A(a, sA, 0, FK, false);
  if (gl_SubgroupID != 0u || lane >= PROBE_MAX_LANES) return;
  const uint accLength = FRAG_LENGTH(acc), aLength = FRAG_LENGTH(a);
  if (lane == 0u) {
    codes[0] = accLength;
    codes[1] = aLength;
    codes[2] = gl_SubgroupSize;
  }
  const uint accBase = 3 + lane * PROBE_MAX_ELEMS, aBase = 3 + (PROBE_MAX_LANES + lane) * PROBE_MAX_ELEMS;
  [[unroll]] for (uint i = 0; i < PROBE_MAX_ELEMS; ++i)
    if (i < accLength) codes[accBase + i] = uint(FRAG_AT(acc, i));
  [[unroll]] for (uint i = 0; i < PROBE_MAX_ELEMS; ++i)
    if (i < aLength) codes[aBase + i] = uint(float(FRAG_AT(a, i)));
}
