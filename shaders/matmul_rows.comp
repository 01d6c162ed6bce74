#version 450
// Storage: f32, f16
// Matrix product for CPU drivers (lavapipe): c = act(alpha a B + bias) + residual (see
// matmul_common.glsl and MatmulParams), register-blocked with no shared memory and no barriers.
// A workgroup owns ROWS consecutive rows of one batch and WG_SIZE * COLS consecutive columns; each
// invocation COLS of those columns for all ROWS rows. K advances KC at a time: each invocation
// loads its columns' KC-long runs of B once (the only per-lane loads, vec4 when ALIGNED_B), then
// feeds them to all ROWS rows, whose a addresses are the same in every lane of the workgroup, so
// llvmpipe loads each a element once and broadcasts it. That makes the inner loop FMAs on
// registers and broadcasts, like attention_rows.comp (lavapipe's fastest design), not gathers.
// The step and column loops are unrolled at pipeline creation; the device loops are the K / KC
// chunks with the ROWS rows inside, a scalar tail of K % KC (times ROWS), the ROWS stores and
// blameNan's K / 4, which the runtime keeps below llvmpipe's loop limit.
// Bindings: matmul_common.glsl; 0 and 1 are also viewed as vec4 arrays, read when ALIGNED_A /
// ALIGNED_B. Push: MatmulParams. Spec: matmul_common.glsl (0 workgroup, 1 B_KN, 2 ROWS, 3 COLS,
// 4 ALIGNED_A, 5 ALIGNED_B, 6 KC).
// Dispatch: one workgroup per (batch, tile) with tilesM = ceil(M / ROWS),
// tilesN = ceil(N / (WG_SIZE * COLS)), flat over x then y. NaN in a, b, bias, residual sets status
// bits 0, 1, 2, 3.
// Tolerance (tests): |c - ref| <= 1e-5 + 1e-5 |ref| + 2e-7 sum_k |a b| (f32 storage); f16 storage
// on fp16-rounded inputs: 1e-3 + 1e-3 |ref| + 2e-7 sum_k |a b| (the f16 output rounding).
#ifdef SHUFFLE_A
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { MatmulParams p; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A4 { ELEM4 a4[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B { ELEM b[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B4 { ELEM4 b4[]; };
#include "matmul_common.glsl"

#define LOAD4(buf, idx) vec4(float(buf[idx]), float(buf[(idx) + 1]), float(buf[(idx) + 2]), float(buf[(idx) + 3]))

const uint KC4 = KC / 4;

void main() {
  const uint tiles = p.tilesM * p.tilesN;
  const uint group = flatGroupIndex();
  if (group >= p.batch * tiles) return;
  const uint bt = group / tiles;
  const uint m0 = ((group % tiles) / p.tilesN) * ROWS;
  const uint n0 = ((group % p.tilesN) * WG_SIZE + gl_LocalInvocationID.x) * COLS;

  // Rows and columns past the edge read the last valid one (in bounds) and are not stored.
  uint bCol[COLS];  // B(n, 0): element k of column n is at bCol + k (B [N, K]) or + k * bStrideRow
  [[unroll]] for (uint j = 0; j < COLS; ++j) bCol[j] = bIndex(bt, min(n0 + j, p.n - 1), 0);
  const uint kStep = B_KN ? p.bStrideRow : 1;

  float acc[ROWS * COLS];
  [[unroll]] for (uint x = 0; x < ROWS * COLS; ++x) acc[x] = 0.0;
  const uint chunks = p.k / KC;
  for (uint ch = 0; ch < chunks; ++ch) {
    const uint k0 = ch * KC;
    vec4 w[COLS * KC4];
    [[unroll]] for (uint j = 0; j < COLS; ++j) {
      [[unroll]] for (uint s = 0; s < KC4; ++s) {
        const uint at = bCol[j] + (k0 + 4 * s) * kStep;
        if (B_KN) w[j * KC4 + s] = vec4(float(b[at]), float(b[at + kStep]), float(b[at + 2 * kStep]), float(b[at + 3 * kStep]));
        else w[j * KC4 + s] = ALIGNED_B ? vec4(b4[at / 4]) : LOAD4(b, at);
      }
    }
    // A device loop (not unrolled): the block's code is then KC x COLS FMAs, not ROWS times that,
    // which keeps pipeline builds short; the accumulators it indexes live in (cached) memory.
    [[dont_unroll]] for (uint r = 0; r < ROWS; ++r) {
      const uint aRow = aIndex(bt, min(m0 + r, p.m - 1), 0);
      float rowAcc[COLS];
      [[unroll]] for (uint j = 0; j < COLS; ++j) rowAcc[j] = acc[r * COLS + j];
#ifdef SHUFFLE_A
      // Lane l loads a[m_r, k0 + 4 (l + WG_SIZE i) ..] for i < KC4 / WG_SIZE; each 4-step is then
      // broadcast from the lane that holds it (registers only) instead of every lane loading it.
      vec4 part[KC4 / WG_SIZE];
      [[unroll]] for (uint i = 0; i < KC4 / WG_SIZE; ++i) {
        const uint at = aRow + k0 + 4 * (gl_SubgroupInvocationID + WG_SIZE * i);
        part[i] = ALIGNED_A ? vec4(a4[at / 4]) : LOAD4(a, at);
      }
#endif
      [[unroll]] for (uint s = 0; s < KC4; ++s) {
#ifdef SHUFFLE_A
        const vec4 av = subgroupShuffle(part[s / WG_SIZE], s % WG_SIZE);
#else
        const uint at = aRow + k0 + 4 * s;
        const vec4 av = ALIGNED_A ? vec4(a4[at / 4]) : LOAD4(a, at);
#endif
        [[unroll]] for (uint j = 0; j < COLS; ++j) rowAcc[j] += dot(av, w[j * KC4 + s]);
      }
      [[unroll]] for (uint j = 0; j < COLS; ++j) acc[r * COLS + j] = rowAcc[j];
    }
  }
  // The tail, K % KC values of k, one at a time.
  for (uint k = chunks * KC; k < p.k; ++k) {
    float bv[COLS];
    [[unroll]] for (uint j = 0; j < COLS; ++j) bv[j] = float(b[bCol[j] + k * kStep]);
    [[dont_unroll]] for (uint r = 0; r < ROWS; ++r) {
      const float av = float(a[aIndex(bt, min(m0 + r, p.m - 1), k)]);
      [[unroll]] for (uint j = 0; j < COLS; ++j) acc[r * COLS + j] = fma(av, bv[j], acc[r * COLS + j]);
    }
  }

  uint bits = 0u;
  bool pending = false;
  uint nanM = 0u, nanN = 0u;
  [[dont_unroll]] for (uint r = 0; r < ROWS; ++r) {
    [[unroll]] for (uint j = 0; j < COLS; ++j) {
      const uint m = m0 + r, n = n0 + j;
      if (m < p.m && n < p.n && storeOutput(bt, m, n, acc[r * COLS + j], bits) && !pending) {
        pending = true;
        nanM = m;
        nanN = n;
      }
    }
  }
  if (pending) bits |= blameNan(bt, nanM, nanN);
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
