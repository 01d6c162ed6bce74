#version 450
// linear() for prompts: y = act(x W^T + bias) + residual for many rows of x, W [N, K] in a ggml
// block format (weight_formats.glsl). Each workgroup owns a TILE x TILE block of y; per K step of
// one unit (32 or 64 weights) it stages the unit's columns of TILE rows of x and TILE units of W,
// decoded as they load,
// in shared memory, and each invocation accumulates 4 x 4 outputs (rows and columns TILE / 4 apart,
// so neighbouring invocations read neighbouring shared words) in fp32. W is never expanded in
// device memory.
// Bindings: 0 x (ELEM), 1 W (32-bit words), 2 y, 3 bias, 4 residual, 5 status (matmul_common.glsl).
// Push constants: MatmulParams (push_constants.h), k a multiple of the block, bOffset and
// bStrideRow in bytes (even), batch 1; tilesM, tilesN the tile grid.
// Spec constants: 0 workgroup size (TILE * TILE / 16), 2 TILE (MATMUL_SPEC_ROWS, a multiple of 4),
// 4 ALIGNED_A.
// Shared memory: 2 * TILE * (UNIT + 1) floats.
// Dispatch: one workgroup per tile, flat over x then y. Loops: K / UNIT steps of UNIT, and the NaN
// report's K + K / UNIT (linear_q_common.glsl).
// NaN in x, W, bias, residual sets status bits 0, 1, 2, 3.
// Tolerance (tests/test_quantized_linear.cpp): as linear_q_matvec.comp.
#include "linear_q_common.glsl"

const uint TILE = ROWS;
const uint SPAN = TILE / 4;  // invocations along each side of the tile
shared float xs[TILE][UNIT + 1];
shared float ws[TILE][UNIT + 1];

void main() {
  const uint tile = flatGroupIndex();
  if (tile >= p.tilesM * p.tilesN) return;  // uniform per workgroup
  const uint m0 = tile / p.tilesN * TILE, n0 = tile % p.tilesN * TILE;
  const uint t = gl_LocalInvocationID.x;
  const uint tm = t / SPAN, tn = t % SPAN;
  float acc[4][4];
  [[unroll]] for (uint i = 0u; i < 4u; ++i)[[unroll]] for (uint j = 0u; j < 4u; ++j) acc[i][j] = 0.0;
  for (uint u = 0u; u < p.k / UNIT; ++u) {
    for (uint e = t; e < TILE * UNIT / 4u; e += WG_SIZE) {
      const uint r = e / (UNIT / 4u), c = 4u * (e % (UNIT / 4u)), m = m0 + r;
      const vec4 v = m < p.m ? x4(m, unitElement(u, c)) : vec4(0.0);
      [[unroll]] for (uint i = 0u; i < 4u; ++i) xs[r][c + i] = v[i];
    }
    for (uint e = t; e < TILE * PIECES; e += WG_SIZE) {
      const uint r = e / PIECES, j = e % PIECES, n = n0 + r;
      vec4 lo = vec4(0.0), hi = vec4(0.0);
      if (n < p.n) decodePiece(loadUnit(weightRowByte(n), u), j, lo, hi);
      [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        ws[r][4u * j + i] = lo[i];
        ws[r][UNIT / 2u + 4u * j + i] = hi[i];
      }
    }
    barrier();  // the x and W tiles are staged
    for (uint k = 0u; k < UNIT; ++k) {
      float xv[4], wv[4];
      [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        xv[i] = xs[tm + SPAN * i][k];
        wv[i] = ws[tn + SPAN * i][k];
      }
      [[unroll]] for (uint i = 0u; i < 4u; ++i)[[unroll]] for (uint j = 0u; j < 4u; ++j) acc[i][j] = fma(xv[i], wv[j], acc[i][j]);
    }
    barrier();  // every invocation is done with the tiles before the next step overwrites them
  }
  uint bits = 0u;
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
      const uint m = m0 + tm + SPAN * i, n = n0 + tn + SPAN * j;
      if (m < p.m && n < p.n && storeOutput(0u, m, n, acc[i][j], bits)) bits |= blameWeightNan(m, n);
    }
  }
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
