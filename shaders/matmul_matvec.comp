#version 450
// Storage: f32, f16
// Matrix product for few rows of a (decode: one token's activations against a weight matrix):
// c = act(alpha a B + bias) + residual (see matmul_common.glsl), float B in a's dtype. Memory-bound
// on B: a workgroup owns COLS output columns (rows of B when B is [N, K]) for 8 rows of a, and its
// invocations stride over K four elements at a time, consecutive invocations on consecutive
// elements (ELEM4 loads where B's rows are aligned), each piece of a read once for the COLS
// columns; two pieces per iteration keep more loads in flight. Partial sums meet through
// subgroupAdd, then across subgroups in shared memory. fp32 accumulation.
// Any M works (workgroups cover 8 rows each), but only few rows use it well: the runtime picks it
// for M <= 8 with B [N, K]. B [K, N] (B_KN) is read element by element.
// Bindings, push constants, spec constants 0-1, 3 (COLS), 4-5: matmul_common.glsl; 12 rows of a
// per workgroup (8, or 1 when M = 1).
// Dispatch: batch x ceil(M / 8) x ceil(N / COLS) workgroups, flat. Loops: ceil(K / 4) / (2 WG_SIZE)
// iterations, and the NaN report's K / 4.
// Tolerance: as matmul_rows.comp (fp32 accumulation; f16 storage rounds the output).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { MatmulParams p; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B { ELEM b[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A4 { ELEM4 a4[]; };  // same data, when aligned
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B4 { ELEM4 b4[]; };
#include "matmul_common.glsl"

// Rows of a per workgroup: 8, or 1 for a single row (a decoded token), whose registers then hold
// one row's sums instead of eight.
layout(constant_id = MATMUL_SPEC_X_ROWS) const uint ROWS_PER_GROUP = 8;
shared float partial[ROWS_PER_GROUP][COLS][WG_SIZE];  // [row of a][column][subgroup]

// Elements k .. k + 3 of row m of a, zeros past K.
vec4 loadA4(uint bt, uint m, uint k) {
  const uint at = aIndex(bt, m, k);
  if (ALIGNED_A && k + 3u < p.k) return vec4(a4[at >> 2]);
  vec4 x = vec4(0.0);
  [[unroll]] for (uint i = 0u; i < 4u; ++i)
    if (k + i < p.k) x[i] = float(a[at + i]);
  return x;
}

// B(n, k .. k + 3), zeros past K.
vec4 loadB4(uint bt, uint n, uint k) {
  if (!B_KN && ALIGNED_B && k + 3u < p.k) return vec4(b4[bIndex(bt, n, k) >> 2]);
  vec4 x = vec4(0.0);
  [[unroll]] for (uint i = 0u; i < 4u; ++i)
    if (k + i < p.k) x[i] = float(b[bIndex(bt, n, k + i)]);
  return x;
}

void main() {
  const uint colGroups = (p.n + COLS - 1u) / COLS, rowGroups = (p.m + ROWS_PER_GROUP - 1u) / ROWS_PER_GROUP;
  const uint group = flatGroupIndex();
  // Uniform per workgroup, so the early return keeps the barrier in uniform control flow.
  if (group >= p.batch * rowGroups * colGroups) return;
  const uint bt = group / (rowGroups * colGroups);
  const uint m0 = ((group / colGroups) % rowGroups) * ROWS_PER_GROUP;
  const uint n0 = (group % colGroups) * COLS;
  const uint rows = min(ROWS_PER_GROUP, p.m - m0);
  const uint lane = gl_LocalInvocationID.x;

  float acc[ROWS_PER_GROUP][COLS];
  [[unroll]] for (uint r = 0u; r < ROWS_PER_GROUP; ++r)
    [[unroll]] for (uint c = 0u; c < COLS; ++c) acc[r][c] = 0.0;
  const uint pieces = (p.k + 3u) / 4u;
  for (uint q = lane; q < pieces; q += 2u * WG_SIZE) {
    [[unroll]] for (uint u = 0u; u < 2u; ++u) {
      const uint piece = q + u * WG_SIZE;
      if (piece < pieces) {
        const uint k = 4u * piece;
        vec4 w[COLS];
        [[unroll]] for (uint c = 0u; c < COLS; ++c) w[c] = loadB4(bt, min(n0 + c, p.n - 1u), k);
        [[unroll]] for (uint r = 0u; r < ROWS_PER_GROUP; ++r) {
          if (r < rows) {
            const vec4 x = loadA4(bt, m0 + r, k);  // read once for the COLS columns
            [[unroll]] for (uint c = 0u; c < COLS; ++c) acc[r][c] += dot(w[c], x);
          }
        }
      }
    }
  }

  [[unroll]] for (uint r = 0u; r < ROWS_PER_GROUP; ++r) {
    if (r < rows) {
      [[unroll]] for (uint c = 0u; c < COLS; ++c) {
        const float s = subgroupAdd(acc[r][c]);
        if (subgroupElect()) partial[r][c][gl_SubgroupID] = s;
      }
    }
  }
  barrier();  // every subgroup's partial sums are in shared memory
  if (lane < rows) {  // lane r finishes row m0 + r
    uint bits = 0u;
    bool pending = false;
    uint nanN = 0u;
    [[unroll]] for (uint c = 0u; c < COLS; ++c) {
      const uint n = n0 + c;
      float sum = 0.0;
      for (uint s = 0u; s < gl_NumSubgroups; ++s) sum += partial[lane][c][s];
      if (n < p.n && storeOutput(bt, m0 + lane, n, sum, bits) && !pending) {
        pending = true;
        nanN = n;
      }
    }
    if (pending) bits |= blameNan(bt, m0 + lane, nanN);
    if (bits != 0u) atomicOr(status[p.statusSlot], bits);
  }
}
