#version 450
// LayerNorm over the last dimension: y = (x - mean) / sqrt(var + eps) * weight + bias, with the
// biased variance (as PyTorch). Two reads compute mean then variance (no cancellation), a third
// writes. Bindings: 0 x, 1 y, 2 weight, 3 bias (ELEM; x when absent), 4 status.
// Push: NormParams. Spec: as row_reduce.glsl. Dispatch: as softmax.comp.
// A NaN in x sets status bit 0, in weight bit 1, in bias bit 2.
// Tolerance (tests): |y - ref| <= 1e-5 + 1e-5 |ref| for f32 storage; 2e-3 + 2e-3 |ref| for f16.
#include "common.glsl"
#include "row_reduce.glsl"
#include "push_constants.h"

layout(push_constant) uniform Push { NormParams p; };
layout(std430, set = 0, binding = 0) readonly buffer X { ELEM x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { ELEM y[]; };
layout(std430, set = 0, binding = 2) readonly buffer W { ELEM weight[]; };
layout(std430, set = 0, binding = 3) readonly buffer B { ELEM bias[]; };
STATUS_BUFFER(4)

void layerNormRow(uint row) {
  const uint base = row * p.cols;
  float sum = 0.0;
  bool nanX = false;
  for (uint c = rowLane(); c < p.cols; c += rowWidth()) {
    float v = float(x[base + c]);
    nanX = nanX || isnan(v);
    sum += v;
  }
  const float mean = rowSum(sum) / float(p.cols);
  float sq = 0.0;
  for (uint c = rowLane(); c < p.cols; c += rowWidth()) {
    float d = float(x[base + c]) - mean;
    sq += d * d;
  }
  const float rstd = inversesqrt(rowSum(sq) / float(p.cols) + p.eps);
  bool nanW = false, nanB = false;
  for (uint c = rowLane(); c < p.cols; c += rowWidth()) {
    float v = (float(x[base + c]) - mean) * rstd;
    if (p.hasWeight != 0) {
      float w = float(weight[c]);
      nanW = nanW || isnan(w);
      v *= w;
    }
    if (p.hasBias != 0) {
      float b = float(bias[c]);
      nanB = nanB || isnan(b);
      v += b;
    }
    y[base + c] = TO_ELEM(v);
  }
  const bool a = rowAny(nanX), b = rowAny(nanW), c = rowAny(nanB);
  if ((a || b || c) && rowLane() == 0) atomicOr(status[p.statusSlot], (a ? 1u : 0u) | (b ? 2u : 0u) | (c ? 4u : 0u));
}

void main() { FOR_EACH_ROW(p.rows, layerNormRow) }
