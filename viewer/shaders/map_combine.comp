#version 450
// map_combine: one elementwise step of a head aggregate or a difference of maps:
// acc = op(acc, x) * scale with op assign (x), add, max or subtract (MODE), so that the mean of H
// heads is assign, H - 2 adds and an add scaled by 1 / H, in the CPU reference's order.
// Bindings: 0 acc (f32, read-write), 1 x (f32, read). Push: MapCombineParams (offsets in
// elements). Spec: 0 workgroup size, 1 MODE (MAP_COMBINE_*).
// Dispatch: one invocation per element, groups over x then y (groupsFor).
// Tolerance (tests, against viewer/src/sources/attention_math.cpp in double precision): max and
// difference exact; mean 1e-6 + 1e-5 |ref| (fp32 sums, the last scaled by the reciprocal).
#include "map_ops_push.h"

layout(local_size_x_id = MAP_SPEC_WORKGROUP_SIZE) in;
layout(constant_id = MAP_SPEC_MODE) const uint MODE = MAP_COMBINE_ASSIGN;

layout(push_constant) uniform Push { MapCombineParams p; };
layout(std430, set = 0, binding = MAP_COMBINE_BINDING_ACC) buffer Acc { float acc[]; };
layout(std430, set = 0, binding = MAP_COMBINE_BINDING_X) readonly buffer X { float x[]; };

void main() {
  const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
                 gl_LocalInvocationID.x;
  if (i >= p.count) return;
  const float v = x[p.xOffset + i];
  float result = v;
  if (MODE == MAP_COMBINE_ADD) result = acc[p.accOffset + i] + v;
  if (MODE == MAP_COMBINE_MAX) result = max(acc[p.accOffset + i], v);
  if (MODE == MAP_COMBINE_SUBTRACT) result = acc[p.accOffset + i] - v;
  acc[p.accOffset + i] = result * p.scale;
}
