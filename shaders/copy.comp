#version 450
// copy: y[i] = x[i] over `count` vec4 words. The bandwidth baseline the benchmarks compare with.
// Bindings: 0 x (vec4, read), 1 y (vec4, write). Push: CopyParams. Spec: 0 workgroup size.
// Dispatch: ceil(count / workgroup size) groups over x then y. Tolerance: exact.
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(push_constant) uniform Push { CopyParams p; };
layout(std430, set = 0, binding = COPY_BINDING_X) readonly buffer X { vec4 x[]; };
layout(std430, set = 0, binding = COPY_BINDING_Y) writeonly buffer Y { vec4 y[]; };

void main() {
  uint i = flatGroupIndex() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i < p.count) y[i] = x[i];
}
