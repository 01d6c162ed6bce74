#version 450
// map_row_stats: per row of a [rows, cols] map its smallest and largest value, its sum and how
// many of its values are not >= 0 (negative or NaN), so that the host reads a few numbers per
// row (the colour scale's range, whether the map holds probabilities) instead of the map.
// Bindings: 0 in (f32, read; the map at p.inOffset), 1 out (f32 [rows, MAP_STATS_FIELDS], write).
// Push: MapRowsParams. Spec: 0 workgroup size (a power of two).
// Dispatch: one workgroup per row, groups over x then y (groupsFor).
// Tolerance (tests, against viewer/src/sources/attention_math.cpp): min, max and the count exact;
// the sum 1e-6 + 1e-5 |ref| (fp32, another order).
#include "map_ops_push.h"

layout(local_size_x_id = MAP_SPEC_WORKGROUP_SIZE) in;
layout(constant_id = MAP_SPEC_WORKGROUP_SIZE) const uint WG_SIZE = 64;

layout(push_constant) uniform Push { MapRowsParams p; };
layout(std430, set = 0, binding = MAP_STATS_BINDING_IN) readonly buffer In { float map[]; };
layout(std430, set = 0, binding = MAP_STATS_BINDING_OUT) writeonly buffer Out { float stats[]; };

shared float lows[WG_SIZE];
shared float highs[WG_SIZE];
shared float sums[WG_SIZE];
shared float bad[WG_SIZE];

const float INF = 1.0 / 0.0;

void main() {
  const uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint lane = gl_LocalInvocationID.x;
  const bool inRange = row < p.rows;  // uniform over the workgroup
  float lo = INF, hi = -INF, sum = 0.0, notProbability = 0.0;
  if (inRange)
    for (uint c = lane; c < p.cols; c += WG_SIZE) {
      const float v = map[p.inOffset + row * p.cols + c];
      lo = min(lo, v);
      hi = max(hi, v);
      sum += v;
      if (!(v >= 0.0)) notProbability += 1.0;
    }
  lows[lane] = lo;
  highs[lane] = hi;
  sums[lane] = sum;
  bad[lane] = notProbability;
  barrier();  // every lane's partials before the tree reads them
  for (uint stride = WG_SIZE / 2; stride > 0; stride /= 2) {
    if (lane < stride) {
      lows[lane] = min(lows[lane], lows[lane + stride]);
      highs[lane] = max(highs[lane], highs[lane + stride]);
      sums[lane] += sums[lane + stride];
      bad[lane] += bad[lane + stride];
    }
    barrier();  // this level's results before the next level reads them
  }
  if (!inRange || lane != 0) return;
  const uint at = row * MAP_STATS_FIELDS;
  stats[at] = lows[0];
  stats[at + 1] = highs[0];
  stats[at + 2] = sums[0];
  stats[at + 3] = bad[0];
}
