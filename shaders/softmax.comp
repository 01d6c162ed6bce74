#version 450
// softmax over the last dimension: y[r, :] = softmax(scale * x[r, :] + mask[maskRow(r), :]).
// Bindings: 0 x (ELEM, read), 1 y (ELEM, write), 2 mask (f32, read; x when absent), 3 status.
// Push: SoftmaxParams. Spec: 0 workgroup size, 1 row per subgroup, 2 rows per workgroup.
// Dispatch: one workgroup per row, or per ROWS_PER_GROUP rows in row-per-subgroup mode.
// Each lane keeps a running (max, sum) over its columns (online softmax, one read); the team merges
// them, then a second read writes exp(v - max) / sum. A row whose logits are all -inf is written
// as zeros. A NaN in x sets status bit 0, in mask bit 1.
// Tolerance (tests): |y - ref| <= 2e-6 + 1e-5 |ref| for f32 storage; 1e-3 abs for f16 storage.
#include "common.glsl"
#include "row_reduce.glsl"
#include "push_constants.h"

layout(push_constant) uniform Push { SoftmaxParams p; };
layout(std430, set = 0, binding = 0) readonly buffer X { ELEM x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { ELEM y[]; };
layout(std430, set = 0, binding = 2) readonly buffer Mask { float mask[]; };
STATUS_BUFFER(3)

const float NEG_INF = -1.0 / 0.0;

uint maskRowOf(uint row) {
  uint r2 = row % p.dim2;
  uint rest = row / p.dim2;
  uint r1 = rest % p.dim1;
  uint r0 = rest / p.dim1;
  return r0 * p.maskStride0 + r1 * p.maskStride1 + r2 * p.maskStride2;
}

void softmaxRow(uint row) {
  const uint base = row * p.cols;
  const uint maskBase = maskRowOf(row) * p.cols;
  float m = NEG_INF;
  float s = 0.0;
  bool nanX = false, nanMask = false;
  for (uint c = rowLane(); c < p.cols; c += rowWidth()) {
    float raw = float(x[base + c]);
    nanX = nanX || isnan(raw);
    float v = raw * p.scale;
    if (p.hasMask != 0) {
      float b = mask[maskBase + c];
      nanMask = nanMask || isnan(b);
      v += b;
    }
    if (v > m) {
      s = s * exp(m - v) + 1.0;
      m = v;
    } else if (v != NEG_INF) {
      s += exp(v - m);
    }
  }
  const float rowMaxValue = rowMax(m);
  const float rowSumValue = rowSum(m == NEG_INF ? 0.0 : s * exp(m - rowMaxValue));
  const bool anyNanX = rowAny(nanX), anyNanMask = rowAny(nanMask);
  if ((anyNanX || anyNanMask) && rowLane() == 0)
    atomicOr(status[p.statusSlot], (anyNanX ? 1u : 0u) | (anyNanMask ? 2u : 0u));

  if (rowMaxValue == NEG_INF) {  // every logit masked: defined as all zeros
    for (uint c = rowLane(); c < p.cols; c += rowWidth()) y[base + c] = TO_ELEM(0.0);
    return;
  }
  const float inv = 1.0 / rowSumValue;
  for (uint c = rowLane(); c < p.cols; c += rowWidth()) {
    float v = float(x[base + c]) * p.scale;
    if (p.hasMask != 0) v += mask[maskBase + c];
    y[base + c] = TO_ELEM(exp(v - rowMaxValue) * inv);
  }
}

void main() { FOR_EACH_ROW(p.rows, softmaxRow) }
