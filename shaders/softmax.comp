#version 450
// Storage: f32, f16
// softmax over the last dimension: y[r, :] = softmax(scale * x[r, :] + mask[maskRow(r), :]).
// Bindings: 0 x (ELEM, read), 1 y (ELEM, write), 2 mask (f32, read; x when absent), 3 status.
// Bindings 0-2 are also viewed as vec4 arrays, used when cols % 4 == 0 (p.vec4Rows): CPU drivers
// turn lane-strided scalar loads into gathers, and a vec4 also needs 1.25 exp per element
// instead of 2 in the online update.
// Push: SoftmaxParams. Spec: 0 workgroup size, 1 row per subgroup, 2 rows per workgroup.
// Dispatch: one workgroup per row, or per ROWS_PER_GROUP rows in row-per-subgroup mode.
// Each lane keeps a running (max, sum) over its columns (online softmax, one read); the team merges
// them, then a second read writes exp(v - max) / sum. A row whose logits are all -inf is written
// as zeros. A NaN in x sets status bit 0, in mask bit 1.
// Tolerance (tests): |y - ref| <= 2e-6 + 1e-5 |ref| for f32 storage; 1e-3 abs for f16 storage.
#include "common.glsl"
#include "kernel_interface.h"
#include "online_max_sum.glsl"
#include "row_reduce.glsl"
#include "push_constants.h"

layout(push_constant) uniform Push { SoftmaxParams p; };
layout(std430, set = 0, binding = SOFTMAX_BINDING_X) readonly buffer X { ELEM x[]; };
layout(std430, set = 0, binding = SOFTMAX_BINDING_X) readonly buffer X4 { ELEM4 x4[]; };
layout(std430, set = 0, binding = SOFTMAX_BINDING_Y) writeonly buffer Y { ELEM y[]; };
layout(std430, set = 0, binding = SOFTMAX_BINDING_Y) writeonly buffer Y4 { ELEM4 y4[]; };
layout(std430, set = 0, binding = SOFTMAX_BINDING_MASK) readonly buffer Mask { float mask[]; };
layout(std430, set = 0, binding = SOFTMAX_BINDING_MASK) readonly buffer Mask4 { vec4 mask4[]; };
STATUS_BUFFER(SOFTMAX_BINDING_STATUS)

uint maskRowOf(uint row) {
  uint r2 = row % p.dim2;
  uint rest = row / p.dim2;
  uint r1 = rest % p.dim1;
  uint r0 = rest / p.dim1;
  return r0 * p.maskStride0 + r1 * p.maskStride1 + r2 * p.maskStride2;
}

vec4 logits4(uint i, uint maskBase4, inout bool nanX, inout bool nanMask) {
  vec4 raw = vec4(x4[i]);
  nanX = nanX || any(isnan(raw));
  vec4 v = raw * p.scale;
  if (p.hasMask != 0) {
    vec4 b = mask4[maskBase4 + i % (p.cols / 4)];
    nanMask = nanMask || any(isnan(b));
    v += b;
  }
  return v;
}

void softmaxRow(uint row) {
  const uint base = row * p.cols;
  const uint maskBase = maskRowOf(row) * p.cols;
  float m = NEG_INF;
  float s = 0.0;
  bool nanX = false, nanMask = false;
  if (p.vec4Rows != 0) {
    const uint base4 = base / 4, end4 = base4 + p.cols / 4;
    for (uint i = base4 + rowLane(); i < end4; i += rowWidth())
      accumulate4(m, s, logits4(i, maskBase / 4, nanX, nanMask));
  } else {
    for (uint c = rowLane(); c < p.cols; c += rowWidth()) {
      float raw = float(x[base + c]);
      nanX = nanX || isnan(raw);
      float v = raw * p.scale;
      if (p.hasMask != 0) {
        float b = mask[maskBase + c];
        nanMask = nanMask || isnan(b);
        v += b;
      }
      accumulate(m, s, v);
    }
  }
  const float rowMaxValue = rowMax(m);
  const float rowSumValue = rowSum(m == NEG_INF ? 0.0 : s * exp(m - rowMaxValue));
  const bool anyNanX = rowAny(nanX), anyNanMask = rowAny(nanMask);
  if ((anyNanX || anyNanMask) && rowLane() == 0)
    atomicOr(status[p.statusSlot], (anyNanX ? 1u : 0u) | (anyNanMask ? 2u : 0u));

  const bool allMasked = rowMaxValue == NEG_INF;  // defined as all zeros
  const float inv = allMasked ? 0.0 : 1.0 / rowSumValue;
  const float shift = allMasked ? 0.0 : rowMaxValue;
  if (p.vec4Rows != 0) {
    const uint base4 = base / 4, end4 = base4 + p.cols / 4;
    bool unused = false;
    for (uint i = base4 + rowLane(); i < end4; i += rowWidth())
      y4[i] = TO_ELEM4(exp(logits4(i, maskBase / 4, unused, unused) - shift) * inv);
  } else {
    for (uint c = rowLane(); c < p.cols; c += rowWidth()) {
      float v = float(x[base + c]) * p.scale;
      if (p.hasMask != 0) v += mask[maskBase + c];
      y[base + c] = TO_ELEM(exp(v - shift) * inv);
    }
  }
}

void main() { FOR_EACH_ROW(p.rows, softmaxRow) }
