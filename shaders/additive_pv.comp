#version 450
// Additive attention output: out[b, i, d] = sum_j weights[b, i, j] * value[b, j, d], f32.
// Bindings: 0 weights [B, Lq, Lk], 1 value [B, Lk, Dv], 2 out [B, Lq, Dv], 3 status.
// Push: AdditiveParams. Spec: 0 workgroup size. Dispatch: one invocation per (b, i, d), flat over
// x then y; it loops over Lk. A NaN in value sets status bit 0.
// Tolerance (tests): |out - ref| <= 2e-5 + 1e-4 |ref|.
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(push_constant) uniform Push { AdditiveParams p; };
layout(std430, set = 0, binding = ADDITIVE_PV_BINDING_WEIGHTS) readonly buffer Weights { float weights[]; };
layout(std430, set = 0, binding = ADDITIVE_PV_BINDING_VALUE) readonly buffer Value { float value[]; };
layout(std430, set = 0, binding = ADDITIVE_PV_BINDING_OUT) writeonly buffer Out { float o[]; };
STATUS_BUFFER(ADDITIVE_PV_BINDING_STATUS)

void main() {
  const uint index = flatGroupIndex() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (index >= p.batch * p.lq * p.dv) return;
  const uint d = index % p.dv;
  const uint row = index / p.dv;  // b * lq + i
  const uint b = row / p.lq;
  float acc = 0.0;
  bool nan = false;
  for (uint j = 0; j < p.lk; ++j) {
    const float x = value[(b * p.lk + j) * p.dv + d];
    nan = nan || isnan(x);
    acc = fma(weights[row * p.lk + j], x, acc);
  }
  if (nan) atomicOr(status[p.statusSlot], 1u);
  o[index] = acc;
}
