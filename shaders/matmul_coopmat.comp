#version 450
// Matrix product on tensor cores (VK_NV_cooperative_matrix, fp16 operands, fp32 accumulation):
// c = act(alpha a B + bias) + residual (see matmul_common.glsl), f16 storage only.
// A workgroup is 4 subgroups (WG_SIZE = 4 x the subgroup size) and owns a 64 x 64 tile of c; each
// subgroup owns one 32 x 32 quadrant as 2 x 2 accumulators of 16 x 16 fp32. K advances 32 at a
// time: the workgroup stages a 64 x 32 slice of a and of B ([n][k], so B is read column-major)
// in shared memory with elements past M, N, K as zeros, so any shape works; rows are padded to
// 40 halves (80 bytes, a multiple of 16) against bank conflicts. The accumulators go through
// shared memory to the common epilogue (bias, activation, residual, NaN report).
// Requires a 16 x 16 x 16 f16 x f16 -> f32 shape among the device's cooperative-matrix properties
// (the runtime checks it). Bindings, push constants, spec constants 0-1: matmul_common.glsl (2-6
// unused). Dispatch: as matmul_tiled.comp. Tolerance: as matmul_rows.comp for f16.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { MatmulParams p; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B { ELEM b[]; };
#include "matmul_common.glsl"

const uint TILE = 64;
const uint BK = 32;
const uint LDS = BK + 8;           // staged row stride in halves
const uint LDC = TILE + 4;         // epilogue row stride in floats
shared float16_t sA[TILE * LDS];   // [m][k]
shared float16_t sB[TILE * LDS];   // [n][k]
shared float sC[TILE * LDC];       // [m][n]

void main() {
  const uint tiles = p.tilesM * p.tilesN;
  const uint group = flatGroupIndex();
  // Uniform per workgroup, so the early return keeps every barrier in uniform control flow.
  if (group >= p.batch * tiles) return;
  const uint bt = group / tiles;
  const uint m0 = ((group % tiles) / p.tilesN) * TILE;
  const uint n0 = (group % p.tilesN) * TILE;
  const uint t = gl_LocalInvocationID.x;
  const uint quadrant = gl_SubgroupID;  // 0..3
  const uint qm = (quadrant / 2) * 32, qn = (quadrant % 2) * 32;

  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[4];
  [[unroll]] for (uint i = 0; i < 4; ++i) acc[i] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);

  for (uint k0 = 0; k0 < p.k; k0 += BK) {
    for (uint e = t; e < TILE * BK; e += WG_SIZE) {
      const uint r = e / BK, kk = e % BK, k = k0 + kk;  // consecutive invocations: consecutive k
      const uint m = m0 + r, n = n0 + r;
      sA[r * LDS + kk] = m < p.m && k < p.k ? a[aIndex(bt, m, k)] : float16_t(0.0);
      sB[r * LDS + kk] = n < p.n && k < p.k ? b[bIndex(bt, n, k)] : float16_t(0.0);
    }
    barrier();  // the staged slices are complete before anyone reads them
    [[unroll]] for (uint kk = 0; kk < BK; kk += 16) {
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ma[2], mb[2];
      [[unroll]] for (uint i = 0; i < 2; ++i)
        coopMatLoadNV(ma[i], sA, (qm + 16 * i) * LDS + kk, LDS, false);
      [[unroll]] for (uint j = 0; j < 2; ++j)
        coopMatLoadNV(mb[j], sB, (qn + 16 * j) * LDS + kk, LDS, true);  // B(k, n) = sB[n][k]
      [[unroll]] for (uint i = 0; i < 2; ++i)
        [[unroll]] for (uint j = 0; j < 2; ++j) acc[i * 2 + j] = coopMatMulAddNV(ma[i], mb[j], acc[i * 2 + j]);
    }
    barrier();  // every read of this slice is done before the next one overwrites it
  }

  [[unroll]] for (uint i = 0; i < 2; ++i)
    [[unroll]] for (uint j = 0; j < 2; ++j)
      coopMatStoreNV(acc[i * 2 + j], sC, (qm + 16 * i) * LDC + qn + 16 * j, LDC, false);
  barrier();  // the whole tile is in sC

  uint bits = 0u;
  bool pending = false;
  uint nanM = 0u, nanN = 0u;
  for (uint e = t; e < TILE * TILE; e += WG_SIZE) {
    const uint m = m0 + e / TILE, n = n0 + e % TILE;
    if (m < p.m && n < p.n && storeOutput(bt, m, n, sC[(e / TILE) * LDC + e % TILE], bits) && !pending) {
      pending = true;
      nanM = m;
      nanN = n;
    }
  }
  if (pending) bits |= blameNan(bt, nanM, nanN);
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
