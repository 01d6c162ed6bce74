#version 450
// Storage: f32, f16
// RMSNorm over the last dimension: y = x / sqrt(mean(x^2) + eps) * weight, plus a residual of x's
// shape when p.hasResidual (a post-norm model's x + norm(sublayer), in one pass; the residual may
// be y itself).
// Bindings: 0 x, 1 y, 2 weight (ELEM; x when absent), 3 status, 4 residual (ELEM; x when absent);
// 0-2 and 4 are also viewed as vec4 arrays, used when cols % 4 == 0 (p.vec4Rows). Push: NormParams
// (hasBias unused). Spec: as row_reduce.glsl. Dispatch: as softmax.comp. A NaN in x sets status
// bit 0, weight bit 1, residual bit 2.
// Tolerance (tests): |y - ref| <= 1e-5 + 1e-5 |ref| for f32 storage; 2e-3 + 2e-3 |ref| for f16.
#include "common.glsl"
#include "kernel_interface.h"
#include "row_reduce.glsl"
#include "push_constants.h"

layout(push_constant) uniform Push { NormParams p; };
layout(std430, set = 0, binding = RMS_NORM_BINDING_X) readonly buffer X { ELEM x[]; };
layout(std430, set = 0, binding = RMS_NORM_BINDING_X) readonly buffer X4 { ELEM4 x4[]; };
layout(std430, set = 0, binding = RMS_NORM_BINDING_Y) writeonly buffer Y { ELEM y[]; };
layout(std430, set = 0, binding = RMS_NORM_BINDING_Y) writeonly buffer Y4 { ELEM4 y4[]; };
layout(std430, set = 0, binding = RMS_NORM_BINDING_WEIGHT) readonly buffer W { ELEM weight[]; };
layout(std430, set = 0, binding = RMS_NORM_BINDING_WEIGHT) readonly buffer W4 { ELEM4 weight4[]; };
layout(std430, set = 0, binding = RMS_NORM_BINDING_RESIDUAL) readonly buffer R { ELEM residual[]; };
layout(std430, set = 0, binding = RMS_NORM_BINDING_RESIDUAL) readonly buffer R4 { ELEM4 residual4[]; };
STATUS_BUFFER(RMS_NORM_BINDING_STATUS)

void rmsNormRow(uint row) {
  const uint base = row * p.cols;
  const bool wide = p.vec4Rows != 0;
  const uint n = wide ? p.cols / 4 : p.cols;
  const uint first = wide ? base / 4 : base;
  float sq = 0.0;
  bool nanX = false;
  for (uint i = rowLane(); i < n; i += rowWidth()) {
    vec4 v = wide ? vec4(x4[first + i]) : vec4(float(x[first + i]), 0.0, 0.0, 0.0);
    nanX = nanX || any(isnan(v));
    sq += dot(v, v);
  }
  const float rstd = inversesqrt(rowSum(sq) / float(p.cols) + p.eps);
  bool nanW = false, nanR = false;
  for (uint i = rowLane(); i < n; i += rowWidth()) {
    vec4 v = (wide ? vec4(x4[first + i]) : vec4(float(x[first + i]))) * rstd;
    if (p.hasWeight != 0) {
      vec4 w = wide ? vec4(weight4[i]) : vec4(float(weight[i]));
      nanW = nanW || any(isnan(w));
      v *= w;
    }
    if (p.hasResidual != 0) {
      const vec4 r = wide ? vec4(residual4[first + i]) : vec4(float(residual[first + i]), 0.0, 0.0, 0.0);
      nanR = nanR || any(isnan(r));
      v += r;
    }
    if (wide) y4[first + i] = TO_ELEM4(v);
    else y[first + i] = TO_ELEM(v.x);
  }
  const bool a = rowAny(nanX), b = rowAny(nanW), c = rowAny(nanR);
  if ((a || b || c) && rowLane() == 0) atomicOr(status[p.statusSlot], (a ? 1u : 0u) | (b ? 2u : 0u) | (c ? 4u : 0u));
}

void main() { FOR_EACH_ROW(p.rows, rmsNormRow) }
