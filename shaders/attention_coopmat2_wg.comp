#version 450
// Fused attention on VK_NV_cooperative_matrix2's workgroup-scope matrices with tensor addressing:
// the twin of attention_coopmat2.comp for devices that offer both (NVIDIA). A workgroup owns BM
// consecutive query rows of one (batch, head) as one workgroup-scope matrix; Q, K^T and V are
// loaded straight from their buffers by coopMatLoadTensorNV through 2D tensor layouts (rows, head
// dim) with the row stride of each tensor, and the output and lse are stored the same way, so the
// kernel declares no shared memory and has no barrier: the compiler stages the matrices through
// the shared memory it reserves (cooperativeMatrixWorkgroupScopeReservedSharedMemory). Per key
// tile: S = Q K^T (K^T through a transposing tensor view), the per-element logit and the online
// softmax of attention_coopmat2_softmax.glsl (shared with the subgroup-scope kernel, which CI
// executes on Mesa 26), then O = alpha O + P V with P converted in registers.
// Edges: tensor layouts with constant clamping read 0 past a layout's dimensions (query rows past
// Lq, keys past the range the workgroup can see, padded head-dim columns) and drop stores there;
// key tiles that lie wholly inside the keys and head dims that need no padding load through
// layouts without clamping.
// Alignment: tensor loads and stores take a base element offset that must be 16-byte aligned, so
// the runtime runs this kernel only where each (batch, head) base of Q, K, V and O is a multiple of
// 8 elements; lse and split-K records are addressed from the buffer's start.
// Head dims are padded with zeros to DKP and DVP, multiples of FG (the flexible-dimension
// granularity). KEY_BLOCK is a multiple of FG and BM of the row granularity.
// Split-K (SPLIT) as attention_coopmat2.comp: partial records (O unnormalised, m, l) to binding 4.
// NaN in q, k, v, bias sets status bits 0, 1, 2, 3 (q, k and v checked per element as loaded; k
// and v only within the keys the workgroup can see).
// Written for NVIDIA's drivers; not executed anywhere yet (Mesa 26's lavapipe offers neither
// workgroup scope nor tensor addressing): the runtime never chooses it on its own.
// Spec: attention_common.glsl, 9 KEY_BLOCK, FRAG_SPEC_M = BM query rows per workgroup,
// FRAG_SPEC_N = FG; the workgroup size (SPEC_WORKGROUP_SIZE) is the device's choice for the tile.
// Tolerance (tests): f16 2e-3 + 5e-3 |ref| (P rounded to f16 before PV); lse 2e-5 + 1e-5 |ref|.
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
#error attention_coopmat2_wg.comp is built for f16 storage only
#endif

layout(push_constant) uniform Push { AttentionParams p; };
layout(std430, set = 0, binding = ATTN_BINDING_Q) readonly buffer Q { float16_t q[]; };
layout(std430, set = 0, binding = ATTN_BINDING_K) readonly buffer K { float16_t k[]; };
layout(std430, set = 0, binding = ATTN_BINDING_V) readonly buffer V { float16_t v[]; };
layout(std430, set = 0, binding = ATTN_BINDING_O) writeonly buffer O { float16_t o[]; };
layout(std430, set = 0, binding = ATTN_BINDING_LSE) writeonly buffer Lse { float lse[]; };
#define ATTN_BIAS_BINDING ATTN_BINDING_BIAS
#define ATTN_KEEP_BINDING ATTN_BINDING_KEEP
#define ATTN_KEYLEN_BINDING ATTN_BINDING_KEYLEN
#define ATTN_SINKS_BINDING ATTN_BINDING_SINKS
#define ATTN_ALIBI_BINDING ATTN_BINDING_ALIBI
#define ATTN_SEQS_BINDING ATTN_BINDING_SEQS  // read only with VARLEN, which this kernel refuses
#include "attention_common.glsl"
STATUS_BUFFER(ATTN_BINDING_STATUS)
#include "attention_coopmat2_softmax.glsl"

layout(constant_id = FRAG_SPEC_M) const uint BM = 64;  // query rows per workgroup
layout(constant_id = FRAG_SPEC_N) const uint FG = 16;  // head dims are padded to multiples of it

const uint DKP = (DK + FG - 1) / FG * FG, DVP = (DV + FG - 1) / FG * FG;

#define MatQ coopmat<float16_t, gl_ScopeWorkgroup, BM, DKP, gl_MatrixUseA>
#define MatK coopmat<float16_t, gl_ScopeWorkgroup, DKP, KEY_BLOCK, gl_MatrixUseB>
#define MatS coopmat<float, gl_ScopeWorkgroup, BM, KEY_BLOCK, gl_MatrixUseAccumulator>
#define MatP coopmat<float16_t, gl_ScopeWorkgroup, BM, KEY_BLOCK, gl_MatrixUseA>
#define MatV coopmat<float16_t, gl_ScopeWorkgroup, KEY_BLOCK, DVP, gl_MatrixUseB>
#define MatO coopmat<float, gl_ScopeWorkgroup, BM, DVP, gl_MatrixUseAccumulator>
#define MatOut coopmat<float16_t, gl_ScopeWorkgroup, BM, DVP, gl_MatrixUseAccumulator>

bool nanQ = false, nanK = false, nanV = false;
float16_t checkQ(const in uint row, const in uint col, const in float16_t x) {
  nanQ = nanQ || isnan(x);
  return x;
}
float16_t checkK(const in uint row, const in uint col, const in float16_t x) {
  nanK = nanK || isnan(x);
  return x;
}
float16_t checkV(const in uint row, const in uint col, const in float16_t x) {
  nanV = nanV || isnan(x);
  return x;
}
bool nanOut = false;
float checkOut(const in uint row, const in uint col, const in float x) {
  nanOut = nanOut || isnan(x);
  return x;
}

void main() {
  const uint blocks = (p.lq + BM - 1) / BM;
  const uint group = flatGroupIndex();
  if (group >= p.batch * p.heads * blocks) return;  // whole workgroup: the matrices stay uniform
  const uint h = (group / blocks) % p.heads;
  const uint b = group / blocks / p.heads;
  const uint kvh = h / p.kvGroup;
  const uint first = (group % blocks) * BM;
  const uint last = min(first + BM, p.lq) - 1;

  // Q: rows first .. first + BM of this head, zeros past Lq and past DK.
  const uint qBase = p.qOffset + b * p.qStrideB + h * p.qStrideH;
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> qLayout =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  qLayout = setTensorLayoutDimensionNV(qLayout, p.lq, DK);
  qLayout = setTensorLayoutStrideNV(qLayout, p.qStrideL, 1);
  MatQ qA;
  coopMatLoadTensorNV(qA, q, qBase, sliceTensorLayoutNV(qLayout, first, BM, 0, DKP));
  coopMatPerElementNV(qA, qA, checkQ);

  MatO acc = MatO(0.0);
  MatS mRun = MatS(M_START), lRun = MatS(0.0);

  int lo, hi;
  keyRange(b, first, last, lo, hi);
  if (SPLIT) {  // this workgroup's share of the keys, whole tiles
    const int splits = int(gl_NumWorkGroups.z);
    const int chunk = ((max(hi - lo, 0) + splits - 1) / splits + int(KEY_BLOCK) - 1) / int(KEY_BLOCK) * int(KEY_BLOCK);
    lo += int(gl_WorkGroupID.z) * chunk;
    hi = min(hi, lo + chunk);
  }
  // K and V rows 0 .. hi of this K/V head: keys at or past hi read as 0 (masked anyway, and a
  // NaN or inf there must not reach P V). Tiles wholly inside use the layouts without clamping.
  const uint kBase = p.kOffset + b * p.kStrideB + kvh * p.kStrideH;
  const uint vBase = p.vOffset + b * p.vStrideB + kvh * p.vStrideH;
  const uint keys = uint(max(hi, 0));
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> kEdge =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  kEdge = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(kEdge, keys, DK), p.kStrideL, 1);
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> vEdge =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  vEdge = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(vEdge, keys, DV), p.vStrideL, 1);
  tensorLayoutNV<2> kInside = createTensorLayoutNV(2);
  kInside = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(kInside, keys, DKP), p.kStrideL, 1);
  tensorLayoutNV<2> vInside = createTensorLayoutNV(2);
  vInside = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(vInside, keys, DVP), p.vStrideL, 1);
  tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);  // K^T: (d, key) from K[key][d]

  const uint tiles = hi > lo ? (uint(hi - lo) + KEY_BLOCK - 1) / KEY_BLOCK : 0u;
  for (uint t = 0; t < tiles; ++t) {
    const int j0 = lo + int(t * KEY_BLOCK);
    const bool inside = j0 + int(KEY_BLOCK) <= hi;
    MatK kB;
    if (inside && DK == DKP) {
      coopMatLoadTensorNV(kB, k, kBase, sliceTensorLayoutNV(kInside, j0, KEY_BLOCK, 0, DKP), transposed);
    } else {
      coopMatLoadTensorNV(kB, k, kBase, sliceTensorLayoutNV(kEdge, j0, KEY_BLOCK, 0, DKP), transposed);
    }
    coopMatPerElementNV(kB, kB, checkK);
    MatS s = coopMatMulAdd(qA, kB, MatS(0.0));
    coopMatPerElementNV(s, s, logitAt, first, last, j0, b, h, lo, hi);
    COOPMAT2_SOFTMAX_TILE(MatS, MatO, s, mRun, lRun, pr, alphaO)
    // O = alpha O + P V.
    MatV vB;
    if (inside && DV == DVP) {
      coopMatLoadTensorNV(vB, v, vBase, sliceTensorLayoutNV(vInside, j0, KEY_BLOCK, 0, DVP));
    } else {
      coopMatLoadTensorNV(vB, v, vBase, sliceTensorLayoutNV(vEdge, j0, KEY_BLOCK, 0, DVP));
    }
    coopMatPerElementNV(vB, vB, checkV);
    acc = coopMatMulAdd(MatP(pr), vB, acc * alphaO);
  }

  // Each row's max and sum over DVP columns, then the output (or split-K's partial records) and lse.
  MatO mO, lO;
  coopMatReduceNV(mO, mRun, gl_CooperativeMatrixReduceRowNV, maxOf);
  coopMatReduceNV(lO, lRun, gl_CooperativeMatrixReduceRowNV, maxOf);
  if (SPLIT) {
    // Record r of the split's rows: lse[r * (DV + 2) ..]: DV accumulator values, then m, then l;
    // rows of this (split, batch, head) from rec0. Each store's layout ends at the columns it owns.
    const uint rec0 = ((gl_WorkGroupID.z * p.batch + b) * p.heads + h) * p.lq;
    const uint recordWidth = DV + 2;
    coopMatPerElementNV(acc, acc, checkOut);
    coopMatPerElementNV(lO, lO, checkOut);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> records =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    records = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(records, rec0 + p.lq, DV), recordWidth, 1);
    coopMatStoreTensorNV(acc, lse, 0, sliceTensorLayoutNV(records, rec0 + first, BM, 0, DVP));
    records = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(records, rec0 + p.lq, DV + 1), recordWidth, 1);
    coopMatStoreTensorNV(mO, lse, 0, sliceTensorLayoutNV(records, rec0 + first, BM, DV, DVP));
    records = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(records, rec0 + p.lq, DV + 2), recordWidth, 1);
    coopMatStoreTensorNV(lO, lse, 0, sliceTensorLayoutNV(records, rec0 + first, BM, DV + 1, DVP));
  } else {
    MatO result;
    coopMatPerElementNV(result, acc, outputOf, mO, lO, h);
    coopMatPerElementNV(result, result, checkOut);
    const uint oBase = p.oOffset + b * p.oStrideB + h * p.oStrideH;
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> oLayout =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    oLayout = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(oLayout, p.lq, DV), p.oStrideL, 1);
    coopMatStoreTensorNV(MatOut(result), o, oBase, sliceTensorLayoutNV(oLayout, first, BM, 0, DVP));
    if (WRITE_LSE) {
      // lse [B, Hq, Lq] as one column: row (b Hq + h) Lq + i, stride 1.
      MatO lseRows;
      coopMatPerElementNV(lseRows, mO, lseOf, lO, h);
      const uint row0 = (b * p.heads + h) * p.lq;
      tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> lseLayout =
          createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
      lseLayout = setTensorLayoutStrideNV(setTensorLayoutDimensionNV(lseLayout, row0 + p.lq, 1), 1, 1);
      coopMatStoreTensorNV(lseRows, lse, 0, sliceTensorLayoutNV(lseLayout, row0 + first, BM, 0, DVP));
    }
  }

  uint bits = (nanQ ? 1u : 0u) | (nanK ? 2u : 0u) | (nanV ? 4u : 0u) | (nanBias ? 8u : 0u);
  if (nanOut && bits == 0u) bits = 4u;  // overflow to inf - inf: blamed on v as the other kernels do
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
