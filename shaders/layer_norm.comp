#version 450
// Storage: f32, f16
// LayerNorm over the last dimension: y = (x - mean) / sqrt(var + eps) * weight + bias, with the
// biased variance (as PyTorch). Two reads compute mean then variance (no cancellation), a third
// writes. Bindings: 0 x, 1 y, 2 weight, 3 bias (ELEM; x when absent), 4 status; 0-3 are also
// viewed as vec4 arrays, used when cols % 4 == 0 (p.vec4Rows).
// Push: NormParams. Spec: as row_reduce.glsl. Dispatch: as softmax.comp.
// A NaN in x sets status bit 0, in weight bit 1, in bias bit 2.
// Tolerance (tests): |y - ref| <= 1e-5 + 1e-5 |ref| for f32 storage; 2e-3 + 2e-3 |ref| for f16.
#include "common.glsl"
#include "kernel_interface.h"
#include "row_reduce.glsl"
#include "push_constants.h"

layout(push_constant) uniform Push { NormParams p; };
layout(std430, set = 0, binding = LAYER_NORM_BINDING_X) readonly buffer X { ELEM x[]; };
layout(std430, set = 0, binding = LAYER_NORM_BINDING_X) readonly buffer X4 { ELEM4 x4[]; };
layout(std430, set = 0, binding = LAYER_NORM_BINDING_Y) writeonly buffer Y { ELEM y[]; };
layout(std430, set = 0, binding = LAYER_NORM_BINDING_Y) writeonly buffer Y4 { ELEM4 y4[]; };
layout(std430, set = 0, binding = LAYER_NORM_BINDING_WEIGHT) readonly buffer W { ELEM weight[]; };
layout(std430, set = 0, binding = LAYER_NORM_BINDING_WEIGHT) readonly buffer W4 { ELEM4 weight4[]; };
layout(std430, set = 0, binding = LAYER_NORM_BINDING_BIAS) readonly buffer B { ELEM bias[]; };
layout(std430, set = 0, binding = LAYER_NORM_BINDING_BIAS) readonly buffer B4 { ELEM4 bias4[]; };
STATUS_BUFFER(LAYER_NORM_BINDING_STATUS)

void layerNormRow(uint row) {
  const uint base = row * p.cols;
  const bool wide = p.vec4Rows != 0;
  const uint n = wide ? p.cols / 4 : p.cols;  // items per row: vec4s or scalars
  const uint first = wide ? base / 4 : base;
  float sum = 0.0;
  bool nanX = false;
  for (uint i = rowLane(); i < n; i += rowWidth()) {
    vec4 v = wide ? vec4(x4[first + i]) : vec4(float(x[first + i]), 0.0, 0.0, 0.0);
    nanX = nanX || any(isnan(v));
    sum += (v.x + v.y) + (v.z + v.w);
  }
  const float mean = rowSum(sum) / float(p.cols);
  float sq = 0.0;
  for (uint i = rowLane(); i < n; i += rowWidth()) {
    vec4 d = wide ? vec4(x4[first + i]) - mean : vec4(float(x[first + i]) - mean, 0.0, 0.0, 0.0);
    sq += dot(d, d);
  }
  const float rstd = inversesqrt(rowSum(sq) / float(p.cols) + p.eps);
  bool nanW = false, nanB = false;
  for (uint i = rowLane(); i < n; i += rowWidth()) {
    vec4 v = ((wide ? vec4(x4[first + i]) : vec4(float(x[first + i]))) - mean) * rstd;
    if (p.hasWeight != 0) {
      vec4 w = wide ? vec4(weight4[i]) : vec4(float(weight[i]));
      nanW = nanW || any(isnan(w));
      v *= w;
    }
    if (p.hasBias != 0) {
      vec4 b = wide ? vec4(bias4[i]) : vec4(float(bias[i]));
      nanB = nanB || any(isnan(b));
      v += b;
    }
    if (wide) y4[first + i] = TO_ELEM4(v);
    else y[first + i] = TO_ELEM(v.x);
  }
  const bool a = rowAny(nanX), b = rowAny(nanW), c = rowAny(nanB);
  if ((a || b || c) && rowLane() == 0) atomicOr(status[p.statusSlot], (a ? 1u : 0u) | (b ? 2u : 0u) | (c ? 4u : 0u));
}

void main() { FOR_EACH_ROW(p.rows, layerNormRow) }
