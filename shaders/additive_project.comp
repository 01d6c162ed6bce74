#version 450
// Projection for additive attention: y[r, a] = sum_d x[r, d] * w[a, d], i.e. x W^T with x
// [rows, inDim] and w [outDim, inDim] (the layout of torch.nn.Linear weights), all f32.
// Bindings: 0 x, 1 w, 2 y, 3 status. Push: ProjectParams. Spec: 0 workgroup size.
// Dispatch: one invocation per (r, a), flat over x then y; it loops over inDim (the runtime keeps
// that under the driver's loop limit). A NaN in x sets status bit 0, in w bit 1.
// Tolerance (tests): as additive_scores.comp, which consumes it.
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(push_constant) uniform Push { ProjectParams p; };
layout(std430, set = 0, binding = ADDITIVE_PROJECT_BINDING_X) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = ADDITIVE_PROJECT_BINDING_W) readonly buffer W { float w[]; };
layout(std430, set = 0, binding = ADDITIVE_PROJECT_BINDING_Y) writeonly buffer Y { float y[]; };
STATUS_BUFFER(ADDITIVE_PROJECT_BINDING_STATUS)

void main() {
  const uint index = flatGroupIndex() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (index >= p.rows * p.outDim) return;
  const uint a = index % p.outDim;
  const uint r = index / p.outDim;
  float acc = 0.0;
  bool nanX = false, nanW = false;
  for (uint d = 0; d < p.inDim; ++d) {
    const float xv = x[r * p.inDim + d], wv = w[a * p.inDim + d];
    nanX = nanX || isnan(xv);
    nanW = nanW || isnan(wv);
    acc = fma(xv, wv, acc);
  }
  if (nanX || nanW) atomicOr(status[p.statusSlot], (nanX ? 1u : 0u) | (nanW ? 2u : 0u));
  y[index] = acc;
}
