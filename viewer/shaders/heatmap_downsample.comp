#version 450
// heatmap_downsample: reduces a map of [rows, cols] f32 to the bins a heatmap view draws, so that
// a view of thousands of tokens draws about one bin per two screen pixels, not one per map cell.
// Bindings: 0 map (f32 [rows, cols] at element p.offset, read), 1 rowEdges (uint, outRows + 1, read), 2 colEdges (uint, outCols + 1,
// read), 3 out (f32 [outRows, outCols], write).
// Push: HeatmapDownsampleParams. Spec: 0 workgroup size, 1 LANES = invocations per bin (a power of
// two dividing the workgroup size), 2 MODE (0 max, 1 mean, 2 the value of largest magnitude, ties
// to the positive one: diverging maps keep their sign).
// Dispatch: WG_SIZE / LANES bins per workgroup, groups over x then y (groupsFor); the lanes of a bin
// stride over its cells, so no lane loops more than cells / LANES times (lavapipe's loop limit),
// then meet in shared memory.
// Tolerance (tests, against the CPU reference in viewer/src/render/downsample.cpp): max and magnitude
// exact; mean 1e-5 + 1e-4 |ref| (fp32 sums of up to ~10^4 cells per lane, in another order).
#include "heatmap_push.h"

layout(local_size_x_id = HEATMAP_SPEC_WORKGROUP_SIZE) in;
layout(constant_id = HEATMAP_SPEC_WORKGROUP_SIZE) const uint WG_SIZE = 64;
layout(constant_id = HEATMAP_SPEC_LANES) const uint LANES = 1;
layout(constant_id = HEATMAP_SPEC_MODE) const uint MODE = 0;

layout(push_constant) uniform Push { HeatmapDownsampleParams p; };
layout(std430, set = 0, binding = HEATMAP_BINDING_MAP) readonly buffer Map { float map[]; };
layout(std430, set = 0, binding = HEATMAP_BINDING_ROW_EDGES) readonly buffer RowEdges { uint rowEdges[]; };
layout(std430, set = 0, binding = HEATMAP_BINDING_COL_EDGES) readonly buffer ColEdges { uint colEdges[]; };
layout(std430, set = 0, binding = HEATMAP_BINDING_OUT) writeonly buffer Out { float outBins[]; };

shared float partial[WG_SIZE];

const float NEG_INF = -1.0 / 0.0;

// Workgroups are laid out over x then y when one dimension cannot hold them all.
uint flatGroupIndex() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

float identity() { return MODE == 1 ? 0.0 : NEG_INF; }

float combine(float a, float b) {
  if (MODE == 1) return a + b;
  if (MODE == 0) return max(a, b);
  // Largest magnitude; -inf marks "no value yet".
  if (a == NEG_INF) return b;
  if (b == NEG_INF) return a;
  const float ma = abs(a), mb = abs(b);
  return ma > mb || (ma == mb && a >= b) ? a : b;
}

void main() {
  const uint binsPerGroup = WG_SIZE / LANES;
  const uint lane = gl_LocalInvocationID.x % LANES;
  const uint bin = flatGroupIndex() * binsPerGroup + gl_LocalInvocationID.x / LANES;
  const uint binCount = p.outRows * p.outCols;
  const bool inRange = bin < binCount;

  float acc = identity();
  uint cells = 1;
  if (inRange) {
    const uint y = bin / p.outCols, x = bin % p.outCols;
    const uint r0 = rowEdges[y], c0 = colEdges[x];
    const uint width = colEdges[x + 1] - c0;
    cells = (rowEdges[y + 1] - r0) * width;
    for (uint k = lane; k < cells; k += LANES) {
      const uint r = r0 + k / width, c = c0 + k % width;
      acc = combine(acc, map[p.offset + r * p.cols + c]);
    }
  }

  // Every invocation reaches the barriers, in range or not (LANES is uniform).
  if (LANES > 1) {
    const uint self = gl_LocalInvocationID.x;
    partial[self] = acc;
    barrier();  // partials visible to the bin's first lanes
    for (uint stride = LANES / 2; stride > 0; stride /= 2) {
      if (lane < stride) partial[self] = combine(partial[self], partial[self + stride]);
      barrier();  // this level's results before the next level reads them
    }
    acc = partial[self];
  }
  if (inRange && lane == 0) outBins[bin] = MODE == 1 ? acc / float(cells) : acc;
}
