#version 450
// Storage: f32, f16
// Matrix product for GPUs: c = act(alpha a B + bias) + residual (see matmul_common.glsl). A
// workgroup of 256 invocations (16 x 16) owns a 64 x 64 tile of c; each invocation 4 x 4 outputs,
// rows ty + 16 i and columns tx + 16 j, so neighbouring invocations read neighbouring shared
// words. K advances 16 at a time: the workgroup stages a 64 x 16 slice of a and a 16 x 64 slice of
// B in shared memory (each invocation loads 4 + 4 elements; consecutive invocations read
// consecutive addresses of whichever dim is contiguous), then every invocation does 16 x 4 x 4
// FMAs from shared memory. Elements past M, N, K are staged as zeros.
// Bindings, push constants, spec constants 0-1: matmul_common.glsl (0 must be 256; 2-6 unused).
// Dispatch: one workgroup per (batch, tile) with tilesM = ceil(M / 64), tilesN = ceil(N / 64),
// flat over x then y; the K loop runs ceil(K / 16) times (plus blameNan's K / 4). NaN in a, b,
// bias, residual sets status bits 0, 1, 2, 3.
// Tolerance (tests): as matmul_rows.comp.
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { MatmulParams p; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B { ELEM b[]; };
#include "matmul_common.glsl"

const uint TILE = 64;
const uint BK = 16;
shared float sA[BK * TILE];  // [k][m]
shared float sB[BK * TILE];  // [k][n]

void main() {
  const uint tiles = p.tilesM * p.tilesN;
  const uint group = flatGroupIndex();
  // Uniform per workgroup, so the early return keeps every barrier in uniform control flow.
  if (group >= p.batch * tiles) return;
  const uint bt = group / tiles;
  const uint m0 = ((group % tiles) / p.tilesN) * TILE;
  const uint n0 = (group % p.tilesN) * TILE;
  const uint t = gl_LocalInvocationID.x;
  const uint tx = t % 16, ty = t / 16;

  float acc[16];
  [[unroll]] for (uint x = 0; x < 16; ++x) acc[x] = 0.0;
  for (uint k0 = 0; k0 < p.k; k0 += BK) {
    // a: invocation t loads row t / 4, k (t % 4) * 4 .. + 3 (K contiguous).
    {
      const uint m = m0 + t / 4;
      [[unroll]] for (uint i = 0; i < 4; ++i) {
        const uint kk = (t % 4) * 4 + i, k = k0 + kk;
        sA[kk * TILE + t / 4] = m < p.m && k < p.k ? float(a[aIndex(bt, m, k)]) : 0.0;
      }
    }
    if (!B_KN) {  // B [N, K]: as a
      const uint n = n0 + t / 4;
      [[unroll]] for (uint i = 0; i < 4; ++i) {
        const uint kk = (t % 4) * 4 + i, k = k0 + kk;
        sB[kk * TILE + t / 4] = n < p.n && k < p.k ? float(b[bIndex(bt, n, k)]) : 0.0;
      }
    } else {  // B [K, N]: invocation t loads row t / 16, columns (t % 16) * 4 .. + 3 (N contiguous)
      const uint kk = t / 16, k = k0 + kk;
      [[unroll]] for (uint i = 0; i < 4; ++i) {
        const uint nn = (t % 16) * 4 + i, n = n0 + nn;
        sB[kk * TILE + nn] = n < p.n && k < p.k ? float(b[bIndex(bt, n, k)]) : 0.0;
      }
    }
    barrier();  // the staged slices are complete before anyone reads them
    [[unroll]] for (uint kk = 0; kk < BK; ++kk) {
      float av[4], bv[4];
      [[unroll]] for (uint i = 0; i < 4; ++i) av[i] = sA[kk * TILE + ty + 16 * i];
      [[unroll]] for (uint j = 0; j < 4; ++j) bv[j] = sB[kk * TILE + tx + 16 * j];
      [[unroll]] for (uint i = 0; i < 4; ++i)
        [[unroll]] for (uint j = 0; j < 4; ++j) acc[i * 4 + j] = fma(av[i], bv[j], acc[i * 4 + j]);
    }
    barrier();  // every read of this slice is done before the next one overwrites it
  }

  uint bits = 0u;
  bool pending = false;
  uint nanM = 0u, nanN = 0u;
  [[unroll]] for (uint i = 0; i < 4; ++i) {
    [[unroll]] for (uint j = 0; j < 4; ++j) {
      const uint m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
      if (m < p.m && n < p.n && storeOutput(bt, m, n, acc[i * 4 + j], bits) && !pending) {
        pending = true;
        nanM = m;
        nanN = n;
      }
    }
  }
  if (pending) bits |= blameNan(bt, nanM, nanN);
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
