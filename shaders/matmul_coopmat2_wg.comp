#version 450
// Matrix product on VK_NV_cooperative_matrix2's workgroup-scope matrices with tensor addressing
// (NVIDIA), f16 operands, fp32 accumulation: c = act(alpha a B + bias) + residual (see
// matmul_common.glsl). A workgroup owns a BM x BN tile of c as one accumulator that stays in
// registers for the whole K loop; K advances BK at a time, each slice of a ([m][k]) and of B ([n][k]
// through a transposing tensor view, or [k][n] with B_KN) loaded straight from its buffer by
// coopMatLoadTensorNV. The kernel declares no shared memory and has no barrier: the compiler stages
// the matrices through what the device reserves for workgroup-scope matrices. Tiles on an edge
// load through layouts with constant clamping (zeros past M, N and K) and store through one that
// drops what lies past M and N; tiles wholly inside load without clamping. The epilogue (alpha,
// bias, activation, residual, NaN report) is one per-element operation on the accumulator, then
// one conversion to f16 and one tensor store.
// Alignment: tensor loads and stores need 16-byte aligned bases, so the runtime runs this kernel
// where the bases of a, B and c (offsets, and batch strides when batched) are multiples of 8
// elements; row strides are free.
// Written for NVIDIA's drivers; not executed anywhere yet (Mesa 26's lavapipe offers neither
// workgroup scope nor tensor addressing): the runtime never chooses it on its own.
// Bindings, push constants, spec constants 0-1: matmul_common.glsl; MATMUL_SPEC_BK BK, FRAG_SPEC_M BM,
// FRAG_SPEC_N BN. Dispatch: batch x tilesM x tilesN workgroups.
// Tolerance: as matmul_rows.comp's f16 (fp32 accumulation).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

#ifndef STORAGE_F16
#error matmul_coopmat2_wg.comp is built for f16 storage only
#endif

layout(push_constant) uniform Push { MatmulParams p; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A { float16_t a[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B { float16_t b[]; };
#include "matmul_common.glsl"

layout(constant_id = FRAG_SPEC_M) const uint BM = 128;  // rows of c per workgroup
layout(constant_id = FRAG_SPEC_N) const uint BN = 128;  // columns of c per workgroup
layout(constant_id = MATMUL_SPEC_BK) const uint BK = 32;  // K per slice

#define MatA coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA>
#define MatB coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB>
#define MatC coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>
#define MatOut coopmat<float16_t, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>

uint statusBits = 0u;

// Element (row, col) of the tile at (m0, n0) of batch bt: alpha, bias, activation and residual, as
// matmul_common.glsl's storeOutput does; a NaN before the activation is blamed on its cause.
float finish(const in uint row, const in uint col, const in float acc, const in uint bt, const in uint m0,
             const in uint n0) {
  const uint m = m0 + row, n = n0 + col;
  if (m >= p.m || n >= p.n) return 0.0;  // past the edges: the store drops it
  float v = p.alpha * acc;
  if (p.hasBias != 0u) v += float(bias[p.biasOffset + n]);
  if (isnan(v)) statusBits |= blameNan(bt, m, n);
  v = activate(v, p.activation);
  if (p.hasResidual != 0u) {
    const float r = float(res[p.resOffset + bt * p.resStrideB + m * p.resStrideM + n]);
    if (isnan(r)) statusBits |= 8u;
    v += r;
  }
  return v;
}

void main() {
  const uint tiles = p.tilesM * p.tilesN;
  const uint group = flatGroupIndex();
  if (group >= p.batch * tiles) return;  // whole workgroup: the matrices stay uniform
  const uint bt = group / tiles;
  const uint m0 = (group % tiles) / p.tilesN * BM, n0 = (group % tiles) % p.tilesN * BN;
  const uint aBase = p.aOffset + bt * p.aStrideB, bBase = p.bOffset + bt * p.bStrideB;

  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> aEdge =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  aEdge = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(aEdge, p.m, p.k), p.aStrideM, 1);
  tensorLayoutNV<2> aInside = createTensorLayoutNV(2);
  aInside = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(aInside, p.m, p.k), p.aStrideM, 1);
  // B's rows: [n][k] (linear's weight, loaded through a transposing view) or [k][n] (B_KN).
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> bEdge =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  tensorLayoutNV<2> bInside = createTensorLayoutNV(2);
  if (B_KN) {
    bEdge = setTensorLayoutDimensionNV(bEdge, p.k, p.n);
    bInside = setTensorLayoutDimensionNV(bInside, p.k, p.n);
  } else {
    bEdge = setTensorLayoutDimensionNV(bEdge, p.n, p.k);
    bInside = setTensorLayoutDimensionNV(bInside, p.n, p.k);
  }
  bEdge = setTensorLayoutStrideNV(bEdge, p.bStrideRow, 1);
  bInside = setTensorLayoutStrideNV(bInside, p.bStrideRow, 1);
  tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);  // B(k, n) from W[n][k]

  MatC acc = MatC(0.0);
  const bool rowsInside = m0 + BM <= p.m && n0 + BN <= p.n;
  for (uint k0 = 0; k0 < p.k; k0 += BK) {
    MatA sliceA;
    MatB sliceB;
    if (rowsInside && k0 + BK <= p.k) {
      coopMatLoadTensorNV(sliceA, a, aBase, sliceTensorLayoutNV(aInside, m0, BM, k0, BK));
      if (B_KN)
        coopMatLoadTensorNV(sliceB, b, bBase, sliceTensorLayoutNV(bInside, k0, BK, n0, BN));
      else
        coopMatLoadTensorNV(sliceB, b, bBase, sliceTensorLayoutNV(bInside, n0, BN, k0, BK), transposed);
    } else {
      coopMatLoadTensorNV(sliceA, a, aBase, sliceTensorLayoutNV(aEdge, m0, BM, k0, BK));
      if (B_KN)
        coopMatLoadTensorNV(sliceB, b, bBase, sliceTensorLayoutNV(bEdge, k0, BK, n0, BN));
      else
        coopMatLoadTensorNV(sliceB, b, bBase, sliceTensorLayoutNV(bEdge, n0, BN, k0, BK), transposed);
    }
    acc = coopMatMulAdd(sliceA, sliceB, acc);
  }

  coopMatPerElementNV(acc, acc, finish, bt, m0, n0);
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> cLayout =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  cLayout = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(cLayout, p.m, p.n), p.cStrideM, 1);
  coopMatStoreTensorNV(MatOut(acc), c, p.cOffset + bt * p.cStrideB, sliceTensorLayoutNV(cLayout, m0, BM, n0, BN));
  if (statusBits != 0u) atomicOr(status[p.statusSlot], statusBits);
}
