#version 450
// Storage: f32, f16
// The index of each row's largest value over the last dimension, the lowest index among equal
// ones: a language model's greedy next token as the host sampler picks it (TokenSampler with
// temperature 0), without the logits leaving the device.
// Bindings: 0 x (ELEM, read), 1 ids (int32, write), 2 status.
// Push: ArgmaxParams. Spec: 0 workgroup size, 1 row per subgroup, 2 rows per workgroup
// (row_reduce.glsl).
// Dispatch: one workgroup per row, or per ROWS_PER_GROUP rows in row-per-subgroup mode.
// Each lane keeps its columns' largest value and the lowest column holding it; the team takes the
// largest value, then the lowest column holding it. A row of -inf gives 0. NaN in x sets status
// bit 0. Exact (comparisons only).
#include "common.glsl"
#include "kernel_interface.h"
#include "row_reduce.glsl"
#include "push_constants.h"

layout(push_constant) uniform Push { ArgmaxParams p; };
layout(std430, set = 0, binding = ARGMAX_BINDING_X) readonly buffer X { ELEM x[]; };
layout(std430, set = 0, binding = ARGMAX_BINDING_IDS) writeonly buffer Ids { int ids[]; };
STATUS_BUFFER(ARGMAX_BINDING_STATUS)

const uint NONE = 0xffffffffu;
shared uint s_lowest[128];  // [subgroup]

// Team-wide minimum of a column index.
uint rowMinIndex(uint v) {
  v = subgroupMin(v);
  if (ROW_PER_SUBGROUP) return v;
  if (subgroupElect()) s_lowest[gl_SubgroupID] = v;
  barrier();
  uint m = NONE;
  for (uint i = 0; i < gl_NumSubgroups; ++i) m = min(m, s_lowest[i]);
  barrier();
  return m;
}

void argmaxRow(uint row) {
  const uint first = row * p.cols;
  float best = -1.0 / 0.0;
  uint at = NONE;  // the lowest of this lane's columns holding `best`
  bool nan = false;
  for (uint c = rowLane(); c < p.cols; c += rowWidth()) {
    const float v = float(x[first + c]);
    nan = nan || isnan(v);
    if (v > best || at == NONE) {
      best = v;
      at = c;
    }
  }
  const float top = rowMax(best);
  const uint lowest = rowMinIndex(best == top ? at : NONE);
  if (rowLane() == 0u) ids[row] = int(lowest == NONE ? 0u : lowest);
  if (rowAny(nan) && rowLane() == 0u) atomicOr(status[p.statusSlot], 1u);
}

void main() {
  FOR_EACH_ROW(p.rows, argmaxRow)
}
