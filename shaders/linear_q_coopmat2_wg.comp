#version 450
// linear() for prompts on VK_NV_cooperative_matrix2's workgroup-scope matrices with tensor
// addressing (NVIDIA): y = act(x W^T + bias) + residual, W [N, K] in a ggml block format decoded as
// the tensor loads read it (weight_elements.glsl's blockElement as the decode function: the
// compiler stages the decoded halves through what the device reserves for workgroup-scope
// matrices), or f16 under f32 x (WEIGHT_F16, loaded as it is); x f16, or f32 converted to f16 by a
// decode function of its own (values past +-65504 become infinities); fp32 accumulation. A
// workgroup owns a BM x BN tile of y as one accumulator; K advances BK at a time (a slice may
// start inside a block: the decode function is told each element's place in its block). No
// shared memory is declared and there is no barrier. Tiles on an edge load through layouts with
// constant clamping (zeros past M, N and K), y's store drops what lies past M and N; tiles
// wholly inside load without clamping.
// Any base: each operand's layout starts at its buffer's first element, its view's first element
// placed at (row0, col0) of that layout (from the offset and the row stride), so no 16-byte
// alignment is asked of the offsets. The layouts of W count blocks (setTensorLayoutBlockSizeNV).
// Epilogue as matmul_coopmat2_wg.comp (alpha 1), the NaN report as the tiled weight kernel's.
// Written for NVIDIA's drivers; not executed anywhere yet (Mesa 26's lavapipe offers neither
// workgroup scope nor tensor addressing): the runtime runs it only when asked for. The decoding it
// calls is executed on every device by dequantize.comp.
// Bindings, push constants: linear_q_common.glsl (bOffset, bStrideRow in bytes, batch 1); spec
// constants 0 workgroup size, MATMUL_SPEC_BK BK, FRAG_SPEC_M BM, FRAG_SPEC_N BN. Dispatch:
// tilesM x tilesN workgroups, flat over x then y. Needs bufferDeviceAddress (the decode functions
// take buffer references) and storageBuffer16BitAccess.
// Tolerance: as the f16 linear kernels (x and the decoded weights in f16, fp32 accumulation).
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_buffer_reference : require
#include "linear_q_common.glsl"

layout(constant_id = FRAG_SPEC_M) const uint BM = 128;  // rows of y per workgroup
layout(constant_id = FRAG_SPEC_N) const uint BN = 128;  // columns of y per workgroup
layout(constant_id = MATMUL_SPEC_BK) const uint BK = 32;  // K per slice

#define MatA coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA>
#define MatB coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB>
#define MatC coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>

#if defined(WEIGHT_F16)
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer WHalves { float16_t wHalves[]; };
const uint W_BLOCK = 1, W_BLOCK_BYTES = 2;  // elements, as the layouts count them
#else
// A block of W as the decode function receives it.
layout(buffer_reference, std430, buffer_reference_align = 2) buffer WeightBlock {
  uint16_t halves[BLOCK_BYTES / 2u];
};
#define BLOCK_HANDLE WeightBlock
uint blockHalf(const in WeightBlock h, uint i) { return uint(h.halves[i]); }
#include "weight_elements.glsl"
const uint W_BLOCK = BLOCK_ELEMENTS, W_BLOCK_BYTES = BLOCK_BYTES;

float16_t decodeWeight(const in WeightBlock block, const in uint blockCoords[2], const in uint coordInBlock[2]) {
  return float16_t(blockElement(block, coordInBlock[1]));
}
#endif

#if !defined(STORAGE_F16)
layout(buffer_reference, std430, buffer_reference_align = 4) buffer XValue { float v; };
float16_t decodeX(const in XValue x, const in uint blockCoords[2], const in uint coordInBlock[2]) {
  return float16_t(x.v);
}
#endif

uint statusBits = 0u;

// Element (row, col) of the tile at (m0, n0): bias, activation and residual as storeOutput does; a
// NaN before the activation is blamed on its cause.
float finish(const in uint row, const in uint col, const in float acc, const in uint m0, const in uint n0) {
  const uint m = m0 + row, n = n0 + col;
  if (m >= p.m || n >= p.n) return 0.0;  // past the edges: the store drops it
  float v = acc;
  if (p.hasBias != 0u) v += float(bias[p.biasOffset + n]);
  if (isnan(v)) statusBits |= blameWeightNan(m, n);
  v = activate(v, p.activation);
  if (p.hasResidual != 0u) {
    const float r = float(res[p.resOffset + m * p.resStrideM + n]);
    if (isnan(r)) statusBits |= 8u;
    v += r;
  }
  return v;
}

// Where a view's first element lies in a layout that starts at its buffer's first element:
// (offset / stride, offset % stride) for rows `stride` apart; a single row keeps the offset as its
// column. The layout's row stride is then max(stride, col0 + width).
uvec2 origin(uint offset, uint stride) { return stride == 0u ? uvec2(0u, offset) : uvec2(offset / stride, offset % stride); }

void main() {
  const uint tiles = p.tilesM * p.tilesN;
  const uint group = flatGroupIndex();
  if (group >= tiles) return;  // whole workgroup: the matrices stay uniform
  const uint m0 = group / p.tilesN * BM, n0 = group % p.tilesN * BN;

  const uvec2 x0 = origin(p.aOffset, p.aStrideM);
  const uint xStride = max(p.aStrideM, x0.y + p.k);
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> xEdge =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  xEdge = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(xEdge, x0.x + p.m, x0.y + p.k), xStride, 1);
  tensorLayoutNV<2> xInside = createTensorLayoutNV(2);
  xInside = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(xInside, x0.x + p.m, x0.y + p.k), xStride, 1);

  // W's layouts count blocks of W_BLOCK elements along K: the first block of the view is block
  // bOffset / W_BLOCK_BYTES of the buffer, its rows bStrideRow / W_BLOCK_BYTES blocks apart.
  const uvec2 w0 = origin(p.bOffset / W_BLOCK_BYTES, p.bStrideRow / W_BLOCK_BYTES);
  const uint wStride = max(p.bStrideRow / W_BLOCK_BYTES, w0.y + p.k / W_BLOCK);
  const uint wCol0 = w0.y * W_BLOCK;
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> wEdge =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  tensorLayoutNV<2> wInside = createTensorLayoutNV(2);
  wEdge = setTensorLayoutBlockSizeNV(wEdge, 1, W_BLOCK);
  wInside = setTensorLayoutBlockSizeNV(wInside, 1, W_BLOCK);
  wEdge = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(wEdge, w0.x + p.n, wCol0 + p.k), wStride, 1);
  wInside = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(wInside, w0.x + p.n, wCol0 + p.k), wStride, 1);
  tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);  // B(k, n) from W[n][k]

  MatC acc = MatC(0.0);
  const bool tileInside = m0 + BM <= p.m && n0 + BN <= p.n;
  for (uint k0 = 0; k0 < p.k; k0 += BK) {
    MatA sliceA;
    MatB sliceB;
    const bool inside = tileInside && k0 + BK <= p.k;
#if defined(STORAGE_F16)
    if (inside)
      coopMatLoadTensorNV(sliceA, a, 0, sliceTensorLayoutNV(xInside, x0.x + m0, BM, x0.y + k0, BK));
    else
      coopMatLoadTensorNV(sliceA, a, 0, sliceTensorLayoutNV(xEdge, x0.x + m0, BM, x0.y + k0, BK));
#else
    if (inside)
      coopMatLoadTensorNV(sliceA, a, 0, sliceTensorLayoutNV(xInside, x0.x + m0, BM, x0.y + k0, BK), decodeX);
    else
      coopMatLoadTensorNV(sliceA, a, 0, sliceTensorLayoutNV(xEdge, x0.x + m0, BM, x0.y + k0, BK), decodeX);
#endif
#if defined(WEIGHT_F16)
    if (inside)
      coopMatLoadTensorNV(sliceB, wHalves, 0, sliceTensorLayoutNV(wInside, w0.x + n0, BN, wCol0 + k0, BK), transposed);
    else
      coopMatLoadTensorNV(sliceB, wHalves, 0, sliceTensorLayoutNV(wEdge, w0.x + n0, BN, wCol0 + k0, BK), transposed);
#else
    if (inside)
      coopMatLoadTensorNV(sliceB, W_WORDS, 0, sliceTensorLayoutNV(wInside, w0.x + n0, BN, wCol0 + k0, BK), transposed,
                          decodeWeight);
    else
      coopMatLoadTensorNV(sliceB, W_WORDS, 0, sliceTensorLayoutNV(wEdge, w0.x + n0, BN, wCol0 + k0, BK), transposed,
                          decodeWeight);
#endif
    acc = coopMatMulAdd(sliceA, sliceB, acc);
  }

  coopMatPerElementNV(acc, acc, finish, m0, n0);
  const uvec2 y0 = origin(p.cOffset, p.cStrideM);
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> yLayout =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  yLayout = setTensorLayoutDimensionNV(yLayout, y0.x + p.m, y0.y + p.n);
  yLayout = setTensorLayoutStrideNV(yLayout, max(p.cStrideM, y0.y + p.n), 1);
  yLayout = sliceTensorLayoutNV(yLayout, y0.x + m0, BM, y0.y + n0, BN);
#if defined(STORAGE_F16)
  coopMatStoreTensorNV(coopmat<float16_t, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(acc), c, 0, yLayout);
#else
  coopMatStoreTensorNV(acc, c, 0, yLayout);
#endif
  if (statusBits != 0u) atomicOr(status[p.statusSlot], statusBits);
}
