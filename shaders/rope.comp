#version 450
// Storage: f32, f16
// Rotary position embedding (RoFormer; seed 002's complex-number form).
// x is viewed as [batch, heads, seq, headDim] with element strides; feature pair i < rotaryDim/2
// of the vector at (b, h, l) is rotated by angle pos(b, l) * invFreq[i], invFreq[i] =
// theta^(-2i / rotaryDim). Pairs are (2i, 2i+1) when interleaved, else (i, i + rotaryDim/2)
// (rotate_half, as HF/NeoX). Features past rotaryDim are copied.
// The phase pos * invFreq[i] / 2pi is computed exactly modulo 1 in 64-bit fixed point (two 32-bit
// words, umulExtended), so accuracy does not decay with the position: the host passes
// step[i] = frac(invFreq[i] / 2pi) * 2^64 as (high word, low word).
// Bindings: 0 x, 1 y (ELEM), 2 step (uvec2), 3 positions (int; step when unused), 4 status.
// Push: RopeParams. Spec: 0 workgroup size. Dispatch: one invocation per (b, l, pair), pairs
// = headDim / 2, spread over x then y; it rotates that pair in every head, so each angle's sin and
// cos are computed once for all heads. A NaN in x sets status bit 0.
// Tolerance (tests): |y - ref| <= 2e-6 (|x| <= 1, any position) for f32; 2e-3 for f16.
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"
#include "rope_angle.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(push_constant) uniform Push { RopeParams p; };
layout(std430, set = 0, binding = ROPE_BINDING_X) readonly buffer X { ELEM x[]; };
layout(std430, set = 0, binding = ROPE_BINDING_Y) writeonly buffer Y { ELEM y[]; };
layout(std430, set = 0, binding = ROPE_BINDING_PHASE_STEP) readonly buffer Step { uvec2 phaseStep[]; };
layout(std430, set = 0, binding = ROPE_BINDING_POSITIONS) readonly buffer Positions { int positions[]; };
STATUS_BUFFER(ROPE_BINDING_STATUS)

void main() {
  const uint halfDim = p.headDim / 2;
  const uint index = flatGroupIndex() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  const uint total = p.batch * p.seq * halfDim;
  if (index >= total) return;
  const uint pair = index % halfDim;
  const uint rest = index / halfDim;
  const uint l = rest % p.seq;
  const uint b = rest / p.seq;
  const uint rotaryPairs = p.rotaryDim / 2;

  uint i0, i1;
  ropePairFeatures(pair, rotaryPairs, p.rotaryDim, p.interleaved != 0u, i0, i1);
  float cs = 1.0, sn = 0.0;
  if (pair < rotaryPairs) {
    int position;
    if (p.positionMode == 0) position = p.positionOffset + int(l);
    else if (p.positionMode == 1) position = positions[l];
    else position = positions[b * p.seq + l];
    const float angle = rotationAngle(position, phaseStep[pair]);
    cs = cos(angle);
    sn = sin(angle);
  }
  bool nan = false;
  uint src = p.xOffset + b * p.strideB + l * p.strideL;
  uint dst = p.outOffset + b * p.outStrideB + l * p.outStrideL;
  for (uint h = 0; h < p.heads; ++h, src += p.strideH, dst += p.outStrideH) {
    const float a = float(x[src + i0]);
    const float c = float(x[src + i1]);
    nan = nan || isnan(a) || isnan(c);
    y[dst + i0] = TO_ELEM(a * cs - c * sn);
    y[dst + i1] = TO_ELEM(c * cs + a * sn);
  }
  if (nan) atomicOr(status[p.statusSlot], 1u);
}
