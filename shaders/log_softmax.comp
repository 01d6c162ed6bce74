#version 450
// Storage: f32, f16
// log_softmax over the last dimension: y[r, :] = v - log(sum_c exp(v_c)) with v = scale * x[r, :]
// (the log-probabilities of a row of logits: scoring, perplexity, a sampler's log-probs).
// Interface: log_softmax.h. Spec: as row_reduce.glsl. Dispatch: one workgroup per row, or per
// ROWS_PER_GROUP rows in row-per-subgroup mode (runRowKernel).
// Each lane keeps a running (max, sum of exp) over its columns (online_max_sum.glsl, one read); the
// team merges them, then a second read writes v - (max + log(sum)). A -inf logit stays -inf; a row
// of -inf alone is written as -inf. A NaN or +inf in x sets status bit 0.
#include "common.glsl"
#include "kernel_interface.h"
#include "log_softmax.h"
#include "online_max_sum.glsl"
#include "row_reduce.glsl"

layout(push_constant) uniform Push { LogSoftmaxParams p; };
layout(std430, set = 0, binding = LOG_SOFTMAX_BINDING_X) readonly buffer X { ELEM x[]; };
layout(std430, set = 0, binding = LOG_SOFTMAX_BINDING_X) readonly buffer X4 { ELEM4 x4[]; };
layout(std430, set = 0, binding = LOG_SOFTMAX_BINDING_Y) writeonly buffer Y { ELEM y[]; };
layout(std430, set = 0, binding = LOG_SOFTMAX_BINDING_Y) writeonly buffer Y4 { ELEM4 y4[]; };
STATUS_BUFFER(LOG_SOFTMAX_BINDING_STATUS)

void logSoftmaxRow(uint row) {
  const bool wide = p.vec4Rows != 0;
  const uint first = wide ? row * (p.cols / 4) : row * p.cols;
  const uint n = wide ? p.cols / 4 : p.cols;
  float m = NEG_INF, s = 0.0;
  bool badX = false;
  for (uint i = rowLane(); i < n; i += rowWidth()) {
    if (wide) {
      const vec4 v = vec4(x4[first + i]);
      badX = badX || any(isnan(v)) || any(equal(v, vec4(-NEG_INF)));
      accumulate4(m, s, v * p.scale);
    } else {
      const float v = float(x[first + i]);
      badX = badX || isnan(v) || v == -NEG_INF;
      accumulate(m, s, v * p.scale);
    }
  }
  const float top = rowMax(m);
  const float sum = rowSum(m == NEG_INF ? 0.0 : s * exp(m - top));
  if (rowAny(badX) && rowLane() == 0) atomicOr(status[p.statusSlot], 1u);
  // log(sum) >= 0 (the largest term is exp(0)); a row of -inf alone keeps -inf everywhere.
  const float shift = top == NEG_INF ? 0.0 : top + log(sum);
  for (uint i = rowLane(); i < n; i += rowWidth()) {
    if (wide) y4[first + i] = TO_ELEM4(vec4(x4[first + i]) * p.scale - shift);
    else y[first + i] = TO_ELEM(float(x[first + i]) * p.scale - shift);
  }
}

void main() { FOR_EACH_ROW(p.rows, logSoftmaxRow) }
