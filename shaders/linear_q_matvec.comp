#version 450
// linear() for decode: y[m, n] = act(sum_k x[m, k] W[n, k] + bias[n]) + residual[m, n] for
// M <= 8 rows of x and W [N, K] in a ggml block format (weight_formats.glsl), decoded as it loads.
// Memory-bound: each workgroup owns one output column n (one row of W); its invocations stride
// over the row's units (32 or 64 weights), decode them a 4-byte word at a time and multiply them
// with every row of x; partial sums meet through subgroupAdd, then across subgroups in shared
// memory (unless the workgroup is one subgroup). fp32 accumulation.
// Bindings: 0 x (ELEM), 1 W (32-bit words), 2 y, 3 bias, 4 residual, 5 status (matmul_common.glsl).
// Push constants: MatmulParams (push_constants.h) with m <= 8, k a multiple of the block, bOffset
// and bStrideRow in bytes (even), batch 1.
// Spec constants: 0 workgroup size (a multiple of the subgroup size), 4 ALIGNED_A, 10
// ONE_SUBGROUP (the workgroup is exactly one subgroup: the sums need no shared memory; lanes >= 8).
// Dispatch: one workgroup per n, flat over x then y. Loops: K / UNIT / WG_SIZE units, and the NaN
// report's K + K / UNIT (linear_q_common.glsl).
// NaN in x, W, bias, residual sets status bits 0, 1, 2, 3.
// Tolerance (tests/test_quantized_linear.cpp): 1e-5 of sum_k |x[m, k]| |W[n, k]| against a double
// reference over the host-decoded weights.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "linear_q_common.glsl"

// The workgroup is one subgroup (CPU drivers' fixed subgroup size): no shared memory, no barrier.
layout(constant_id = MATMUL_SPEC_ONE_SUBGROUP) const bool ONE_SUBGROUP = false;

const uint MAX_M = 8;
shared float partial[MAX_M][WG_SIZE];  // [row of x][subgroup]

void main() {
  const uint n = flatGroupIndex();
  if (n >= p.n) return;  // uniform per workgroup
  const uint lane = gl_LocalInvocationID.x;
  const uint rowByte = weightRowByte(n);
  float acc[MAX_M];
  [[unroll]] for (uint m = 0u; m < MAX_M; ++m) acc[m] = 0.0;
  for (uint u = lane; u < p.k / UNIT; u += WG_SIZE) {
    const Unit h = loadUnit(rowByte, u);
    [[unroll]] for (uint j = 0u; j < PIECES; ++j) {
      vec4 lo, hi;
      decodePiece(h, j, lo, hi);
      const uint kLo = unitElement(u, 4u * j), kHi = unitElement(u, UNIT / 2u + 4u * j);
      [[unroll]] for (uint m = 0u; m < MAX_M; ++m)
        if (m < p.m) acc[m] += dot(lo, x4(m, kLo)) + dot(hi, x4(m, kHi));
    }
  }
  float mine = 0.0;  // lane m's: row m's sum
  [[unroll]] for (uint m = 0u; m < MAX_M; ++m) {
    if (m < p.m) {
      const float s = subgroupAdd(acc[m]);
      if (ONE_SUBGROUP) {
        if (lane == m) mine = s;
      } else if (subgroupElect()) {
        partial[m][gl_SubgroupID] = s;
      }
    }
  }
  if (!ONE_SUBGROUP) {
    barrier();  // every subgroup's partial sums are in shared memory
    if (lane < p.m)
      for (uint s = 0u; s < gl_NumSubgroups; ++s) mine += partial[lane][s];
  }
  if (lane < p.m) {
    const float sum = mine;
    uint bits = 0u;
    if (storeOutput(0u, lane, n, sum, bits)) bits |= blameNan(lane, n);
    if (bits != 0u) atomicOr(status[p.statusSlot], bits);
  }
}
