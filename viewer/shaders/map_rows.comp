#version 450
// map_rows: per-row rewrites of a [rows, cols] map that need the row's sums: the residual step of
// attention rollout (RESIDUAL: rownorm(0.5 A + 0.5 I)) and hiding columns (HIDE: hidden columns
// zeroed; with RENORMALISE the rest of the row is rescaled to the row's former sum, a row with
// nothing left stays zero).
// Bindings: 0 in (f32, read; the map at p.inOffset), 1 out (f32 [rows, cols], write), 2 hidden
// (uint [cols], nonzero hides the column; read only with HIDE). Push: MapRowsParams.
// Spec: 0 workgroup size (a power of two), 1 RESIDUAL, 2 HIDE, 3 RENORMALISE (uint 0/1).
// Dispatch: one workgroup per row, groups over x then y (groupsFor); the lanes stride over the
// row's columns, then meet in shared memory.
// Tolerance (tests, against viewer/src/sources/attention_math.cpp in double precision):
// 1e-6 + 1e-5 |ref| (fp32 row sums in another order).
#include "map_ops_push.h"

layout(local_size_x_id = MAP_SPEC_WORKGROUP_SIZE) in;
layout(constant_id = MAP_SPEC_WORKGROUP_SIZE) const uint WG_SIZE = 64;
layout(constant_id = MAP_SPEC_RESIDUAL) const uint RESIDUAL = 0;
layout(constant_id = MAP_SPEC_HIDE) const uint HIDE = 0;
layout(constant_id = MAP_SPEC_RENORMALISE) const uint RENORMALISE = 0;

layout(push_constant) uniform Push { MapRowsParams p; };
layout(std430, set = 0, binding = MAP_ROWS_BINDING_IN) readonly buffer In { float map[]; };
layout(std430, set = 0, binding = MAP_ROWS_BINDING_OUT) writeonly buffer Out { float outMap[]; };
layout(std430, set = 0, binding = MAP_ROWS_BINDING_HIDDEN) readonly buffer Hidden { uint hidden[]; };

shared float before[WG_SIZE];
shared float after[WG_SIZE];

float valueAt(uint row, uint col) {
  const float v = map[p.inOffset + row * p.cols + col];
  return RESIDUAL != 0 ? 0.5 * v + (row == col ? 0.5 : 0.0) : v;
}

bool hiddenColumn(uint col) { return HIDE != 0 && hidden[col] != 0; }

void main() {
  const uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint lane = gl_LocalInvocationID.x;
  const bool inRange = row < p.rows;  // uniform over the workgroup
  float sumAll = 0.0, sumKept = 0.0;
  if (inRange)
    for (uint c = lane; c < p.cols; c += WG_SIZE) {
      const float v = valueAt(row, c);
      sumAll += v;
      if (!hiddenColumn(c)) sumKept += v;
    }
  before[lane] = sumAll;
  after[lane] = sumKept;
  barrier();  // every lane's partial sums before the tree reads them
  for (uint stride = WG_SIZE / 2; stride > 0; stride /= 2) {
    if (lane < stride) {
      before[lane] += before[lane + stride];
      after[lane] += after[lane + stride];
    }
    barrier();  // this level's sums before the next level reads them
  }
  if (!inRange) return;
  float gain = 1.0;
  if (RESIDUAL != 0 && before[0] > 0.0) gain = 1.0 / before[0];
  if (HIDE != 0 && RENORMALISE != 0) gain = after[0] > 0.0 ? before[0] / after[0] : 0.0;
  for (uint c = lane; c < p.cols; c += WG_SIZE)
    outMap[row * p.cols + c] = hiddenColumn(c) ? 0.0 : valueAt(row, c) * gain;
}
