#version 450
// RMSNorm over the last dimension: y = x / sqrt(mean(x^2) + eps) * weight.
// Bindings: 0 x, 1 y, 2 weight (ELEM; x when absent), 3 status. Push: NormParams (hasBias unused).
// Spec: as row_reduce.glsl. Dispatch: as softmax.comp. A NaN in x sets status bit 0, weight bit 1.
// Tolerance (tests): |y - ref| <= 1e-5 + 1e-5 |ref| for f32 storage; 2e-3 + 2e-3 |ref| for f16.
#include "common.glsl"
#include "row_reduce.glsl"
#include "push_constants.h"

layout(push_constant) uniform Push { NormParams p; };
layout(std430, set = 0, binding = 0) readonly buffer X { ELEM x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { ELEM y[]; };
layout(std430, set = 0, binding = 2) readonly buffer W { ELEM weight[]; };
STATUS_BUFFER(3)

void rmsNormRow(uint row) {
  const uint base = row * p.cols;
  float sq = 0.0;
  bool nanX = false;
  for (uint c = rowLane(); c < p.cols; c += rowWidth()) {
    float v = float(x[base + c]);
    nanX = nanX || isnan(v);
    sq += v * v;
  }
  const float rstd = inversesqrt(rowSum(sq) / float(p.cols) + p.eps);
  bool nanW = false;
  for (uint c = rowLane(); c < p.cols; c += rowWidth()) {
    float v = float(x[base + c]) * rstd;
    if (p.hasWeight != 0) {
      float w = float(weight[c]);
      nanW = nanW || isnan(w);
      v *= w;
    }
    y[base + c] = TO_ELEM(v);
  }
  const bool a = rowAny(nanX), b = rowAny(nanW);
  if ((a || b) && rowLane() == 0) atomicOr(status[p.statusSlot], (a ? 1u : 0u) | (b ? 2u : 0u));
}

void main() { FOR_EACH_ROW(p.rows, rmsNormRow) }
