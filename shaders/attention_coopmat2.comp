#version 450
// Fused attention on VK_NV_cooperative_matrix2's flexible matrices, FlashAttention-2 style:
// O = softmax(scale Q K^T + mask) V with the softmax done on the matrices themselves, so S and P
// never pass through shared memory. Per key tile a subgroup computes S = Q K^T as one
// FM x KEY_BLOCK accumulator (one coopMatMulAdd over the whole padded head dim), applies scale,
// masks, softcap, ALiBi and bias by a per-element operation (coopMatPerElementNV, which hands each
// element its row and column), takes each row's max and sum by row reductions (coopMatReduceNV),
// exponentiates per element, converts P in registers to an A operand (accumulator -> A, f16) and
// adds P V into the FM x DVP output accumulator after scaling it by the rows' correction factors
// (a row reduction smears a row's factor over DVP columns). Only the features Mesa's lavapipe 26
// implements are used: subgroup scope, flexible dimensions, reductions, conversions and per-element
// operations (no tensor addressing, no workgroup scope).
// A workgroup is ROWS subgroups of LANES lanes and owns FM ROWS consecutive query rows of one
// (batch, head); each subgroup owns FM of them. K/V tiles are staged in shared memory as in
// attention_coopmat.comp (attention_kv_stage.glsl; STAGES = 2 double-buffers them); Q enters, and
// the output leaves, through one fp32 block of shared memory per subgroup (sO), since rows past Lq
// and padded head-dim columns must be neither read nor written. That block lies over the K/V tiles
// (one array of 16-byte words), which are idle before the key loop and after it, so 4 subgroups x
// 32 keys x 2 stages fit in NVIDIA's 48 KiB at head dim 128 (the sum would need 67 KiB); a
// workgroup barrier separates the two uses at each end of the loop.
// The online softmax is exact (no lazy rescale: every tile rescales O) and uses the finite
// sentinels of attention_common.glsl (MASKED, M_START), so it does not rely on IEEE -inf
// arithmetic; a row with no visible key keeps l = 0, giving zeros and lse = -inf (finishRow).
// Head dims are padded with zeros to DKP and DVP, multiples of FG (the device's flexible-dimension
// granularity, at least 8). KEY_BLOCK is a multiple of FG and FM of the row granularity.
// Split-K (SPLIT) as attention_coopmat.comp: partial records (O unnormalised, m, l) to binding 4.
// Subgroups skip tiles outside their own rows' band; LOCKSTEP_SUBGROUPS as attention_coopmat.comp
// (CPU drivers: subgroupSync is a memory barrier alone). Shared memory: shared_layout.h (ATTN_COOPMAT2_*), which the runtime sizes tiles with.
// Spec: attention_common.glsl, 8 ROWS = subgroups per workgroup, 9 KEY_BLOCK, 15 STAGES,
// 16 LANES = subgroup size (required by the pipeline), 26 LOCKSTEP_SUBGROUPS, FRAG_SPEC_M = FM
// rows per subgroup, FRAG_SPEC_N = FG.
// NaN in q, k, v, bias sets status bits 0, 1, 2, 3.
// The online softmax, logits and epilogue values are attention_coopmat2_softmax.glsl's, shared with
// the workgroup-scope twin (attention_coopmat2_wg.comp).
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
#include "shared_layout.h"

#ifndef STORAGE_F16
#error attention_coopmat2.comp is built for f16 storage only
#endif
#define FRAG_IN float16_t
const uint PAD = 8;  // 16 bytes of f16

layout(push_constant) uniform Push { AttentionParams p; };
layout(std430, set = 0, binding = ATTN_BINDING_Q) readonly buffer Q { ELEM q[]; };
layout(std430, set = 0, binding = ATTN_BINDING_K) readonly buffer K { ELEM k[]; };
layout(std430, set = 0, binding = ATTN_BINDING_V) readonly buffer V { ELEM v[]; };
layout(std430, set = 0, binding = ATTN_BINDING_K) readonly buffer K4 { ELEM4 k4[]; };  // same data, when ALIGNED
layout(std430, set = 0, binding = ATTN_BINDING_V) readonly buffer V4 { ELEM4 v4[]; };
layout(std430, set = 0, binding = ATTN_BINDING_K) readonly buffer K2 { uvec2 k2[]; };  // 4 halves, when ALIGNED
layout(std430, set = 0, binding = ATTN_BINDING_V) readonly buffer V2 { uvec2 v2[]; };
layout(std430, set = 0, binding = ATTN_BINDING_O) writeonly buffer O { ELEM o[]; };
layout(std430, set = 0, binding = ATTN_BINDING_LSE) writeonly buffer Lse { float lse[]; };
#define ATTN_BIAS_BINDING ATTN_BINDING_BIAS
#define ATTN_KEEP_BINDING ATTN_BINDING_KEEP
#define ATTN_KEYLEN_BINDING ATTN_BINDING_KEYLEN
#define ATTN_SINKS_BINDING ATTN_BINDING_SINKS
#define ATTN_ALIBI_BINDING ATTN_BINDING_ALIBI
#define ATTN_SEQS_BINDING ATTN_BINDING_SEQS  // read only with VARLEN, which this kernel refuses
#include "attention_common.glsl"
STATUS_BUFFER(ATTN_BINDING_STATUS)

layout(constant_id = ATTN_SPEC_LOCKSTEP_SUBGROUPS) const bool LOCKSTEP_SUBGROUPS = false;
layout(constant_id = FRAG_SPEC_M) const uint FM = 16;  // query rows per subgroup
layout(constant_id = FRAG_SPEC_N) const uint FG = 8;   // head dims are padded to multiples of it

const uint LANES = SUBGROUP_SIZE;
const uint DKP = (DK + FG - 1) / FG * FG, DVP = (DV + FG - 1) / FG * FG;
const uint LDK = ATTN_COOPMAT_LD_KV(DKP, PAD), LDV = ATTN_COOPMAT_LD_KV(DVP, PAD);
const uint LDO = ATTN_COOPMAT2_LD_O(DKP, DVP);

#define MatQ coopmat<float16_t, gl_ScopeSubgroup, FM, DKP, gl_MatrixUseA>
#define MatQStage coopmat<float, gl_ScopeSubgroup, FM, DKP, gl_MatrixUseAccumulator>
#define MatK coopmat<float16_t, gl_ScopeSubgroup, DKP, KEY_BLOCK, gl_MatrixUseB>
#define MatS coopmat<float, gl_ScopeSubgroup, FM, KEY_BLOCK, gl_MatrixUseAccumulator>
#define MatP coopmat<float16_t, gl_ScopeSubgroup, FM, KEY_BLOCK, gl_MatrixUseA>
#define MatV coopmat<float16_t, gl_ScopeSubgroup, KEY_BLOCK, DVP, gl_MatrixUseB>
#define MatO coopmat<float, gl_ScopeSubgroup, FM, DVP, gl_MatrixUseAccumulator>

#define STAGE_WORDS  // K/V tiles as 16-byte words (attention_kv_stage.glsl)
// K's tiles, then V's, in 16-byte words; the fp32 block sO (FM x ROWS rows of LDO, a multiple of
// 4) over them from word 0 (shared_layout.h sizes the larger of the two).
const uint KV_WORDS = STAGES * KEY_BLOCK * (LDK + LDV) / 8, O_WORDS = FM * ROWS * LDO / 4;
shared uvec4 sKVO[KV_WORDS > O_WORDS ? KV_WORDS : O_WORDS];
#define sK sKVO
#define sV sKVO
#define STAGE_V_BASE (STAGES * KEY_BLOCK * LDK)
#define sO sKVO
const uint O_WORD = 4;  // floats per word of sO: the matrix loads' offsets and strides are in words
float sOAt(const uint x) { return uintBitsToFloat(sKVO[x / 4u][x % 4u]); }
void sOSet(const uint x, const float value) { sKVO[x / 4u][x % 4u] = floatBitsToUint(value); }

#include "attention_kv_stage.glsl"

void subgroupSync() {
  subgroupMemoryBarrierShared();
  if (!LOCKSTEP_SUBGROUPS) subgroupBarrier();
}

#include "attention_coopmat2_softmax.glsl"

void main() {
  const uint BLOCK = FM * ROWS;
  const uint blocks = (p.lq + BLOCK - 1) / BLOCK;
  const uint group = flatGroupIndex();
  if (group >= p.batch * p.heads * blocks) return;  // whole workgroup: barriers stay uniform
  const uint lane = gl_SubgroupInvocationID;
  const uint r0 = gl_SubgroupID * FM;  // this subgroup's first row in the block
  const uint h = (group / blocks) % p.heads;
  const uint b = group / blocks / p.heads;
  const uint kvh = h / p.kvGroup;
  const uint first = (group % blocks) * BLOCK;
  const uint last = min(first + BLOCK, p.lq) - 1;
  bool nanQ = false, nanK = false, nanV = false;

  // Q through this subgroup's rows of sO (fp32, zero-padded; rows past Lq repeat the last row),
  // loaded as an accumulator and converted to the A operand.
  const uint qBase = p.qOffset + b * p.qStrideB + h * p.qStrideH;
  [[dont_unroll]] for (uint x = lane; x < FM * DKP; x += LANES) {
    const uint row = x / DKP, c = x % DKP;
    const uint i = min(first + r0 + row, last);
    const float val = c < DK ? float(q[qBase + i * p.qStrideL + c]) : 0.0;
    nanQ = nanQ || isnan(val);
    sOSet((r0 + row) * LDO + c, val);
  }
  subgroupSync();  // the block is whole before it is loaded
  MatQStage qStage;
  coopMatLoad(qStage, sO, r0 * LDO / O_WORD, LDO / O_WORD, gl_CooperativeMatrixLayoutRowMajor);
  const MatQ qA = MatQ(qStage);
  barrier();  // every subgroup holds its Q before the K/V tiles overwrite the block

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
  // Keys this subgroup's own rows can see: tiles outside them are skipped (subgroup-uniform).
  int ownLo, ownHi;
  keyRange(b, min(first + r0, last), min(first + r0 + FM - 1, last), ownLo, ownHi);
  ownLo = max(ownLo, lo);
  ownHi = min(ownHi, hi);
  const uint kBase = p.kOffset + b * p.kStrideB + kvh * p.kStrideH;
  const uint vBase = p.vOffset + b * p.vStrideB + kvh * p.vStrideH;
  const uint tiles = hi > lo ? (uint(hi - lo) + KEY_BLOCK - 1) / KEY_BLOCK : 0u;
  if (STAGES == 2 && tiles > 0) stageTile(kBase, vBase, lo, hi, 0, nanK, nanV);
  barrier();  // the first tile is staged (double-buffered) and every subgroup has loaded its Q

  for (uint t = 0; t < tiles; ++t) {
    const int j0 = lo + int(t * KEY_BLOCK);
    uint stage = 0;
    TileWords next;
    if (STAGES == 1) {
      if (t > 0) barrier();  // everyone is done with the previous tile before it is overwritten
      stageTile(kBase, vBase, j0, hi, 0, nanK, nanV);
      barrier();  // the tile is staged
    } else {
      stage = t & 1u;
      // The next tile into registers now, into the other buffer after this tile's math.
      if (t + 1 < tiles) loadTile(kBase, vBase, j0 + int(KEY_BLOCK), hi, next);
    }

    if (j0 < ownHi && j0 + int(KEY_BLOCK) > ownLo && ownLo < ownHi) {
      // S = Q K^T: B(d, key) = sK[key][d], column-major.
      MatK kB;
      coopMatLoad(kB, sK, STAGE_INDEX(stage * KEY_BLOCK * LDK), STAGE_INDEX(LDK), gl_CooperativeMatrixLayoutColumnMajor);
      MatS s = coopMatMulAdd(qA, kB, MatS(0.0));
      coopMatPerElementNV(s, s, logitAt, first + r0, last, j0, b, h, lo, hi);
      COOPMAT2_SOFTMAX_TILE(MatS, MatO, s, mRun, lRun, pr, alphaO)
      // O = alpha O + P V.
      MatV vB;
      coopMatLoad(vB, sV, STAGE_INDEX(STAGE_V_BASE + stage * KEY_BLOCK * LDV), STAGE_INDEX(LDV),
                  gl_CooperativeMatrixLayoutRowMajor);
      acc = coopMatMulAdd(MatP(pr), vB, acc * alphaO);
    }
    if (STAGES == 2) {
      // The other buffer was last read in tile t - 1, which the barrier ending it closed.
      if (t + 1 < tiles) storeTile(next, (t & 1u) ^ 1u, nanK, nanV);
      barrier();  // tile t + 1 is staged and tile t's buffer is free again
    }
  }
  if (STAGES == 1) barrier();  // every subgroup is done with the last tile before sO overwrites it

  // Each row's max and sum over DVP columns, then the output (or split-K's partial records) and
  // lse leave through sO, one row-major block at a time.
  MatO mO, lO;
  coopMatReduceNV(mO, mRun, gl_CooperativeMatrixReduceRowNV, maxOf);
  coopMatReduceNV(lO, lRun, gl_CooperativeMatrixReduceRowNV, maxOf);
  bool nanOut = false;
  const uint rec0 = ((gl_WorkGroupID.z * p.batch + b) * p.heads + h) * p.lq;  // split-K records of row 0
  const uint oBase = p.oOffset + b * p.oStrideB + h * p.oStrideH;
  if (SPLIT) {
    coopMatStore(acc, sO, r0 * LDO / O_WORD, LDO / O_WORD, gl_CooperativeMatrixLayoutRowMajor);
    subgroupSync();
    [[dont_unroll]] for (uint x = lane; x < FM * DV; x += LANES) {
      const uint row = x / DV, c = x % DV;
      if (first + r0 + row >= p.lq) continue;
      const float val = sOAt((r0 + row) * LDO + c);
      nanOut = nanOut || isnan(val);
      lse[(rec0 + first + r0 + row) * (DV + 2) + c] = val;
    }
    subgroupSync();
    coopMatStore(mO, sO, r0 * LDO / O_WORD, LDO / O_WORD, gl_CooperativeMatrixLayoutRowMajor);
    subgroupSync();
    for (uint rr = lane; rr < FM; rr += LANES)
      if (first + r0 + rr < p.lq) lse[(rec0 + first + r0 + rr) * (DV + 2) + DV] = sOAt((r0 + rr) * LDO);
    subgroupSync();
    coopMatStore(lO, sO, r0 * LDO / O_WORD, LDO / O_WORD, gl_CooperativeMatrixLayoutRowMajor);
    subgroupSync();
    for (uint rr = lane; rr < FM; rr += LANES) {
      if (first + r0 + rr >= p.lq) continue;
      const float l = sOAt((r0 + rr) * LDO);
      nanOut = nanOut || isnan(l);
      lse[(rec0 + first + r0 + rr) * (DV + 2) + DV + 1] = l;
    }
  } else {
    MatO result;
    coopMatPerElementNV(result, acc, outputOf, mO, lO, h);
    coopMatStore(result, sO, r0 * LDO / O_WORD, LDO / O_WORD, gl_CooperativeMatrixLayoutRowMajor);
    subgroupSync();
    [[dont_unroll]] for (uint x = lane; x < FM * DV; x += LANES) {
      const uint row = x / DV, c = x % DV;
      if (first + r0 + row >= p.lq) continue;
      const float val = sOAt((r0 + row) * LDO + c);
      nanOut = nanOut || isnan(val);
      o[oBase + (first + r0 + row) * p.oStrideL + c] = TO_ELEM(val);
    }
    if (WRITE_LSE) {
      MatO lseRows;
      coopMatPerElementNV(lseRows, mO, lseOf, lO, h);
      subgroupSync();  // the output block has been read
      coopMatStore(lseRows, sO, r0 * LDO / O_WORD, LDO / O_WORD, gl_CooperativeMatrixLayoutRowMajor);
      subgroupSync();
      for (uint rr = lane; rr < FM; rr += LANES)
        if (first + r0 + rr < p.lq) lse[(b * p.heads + h) * p.lq + first + r0 + rr] = sOAt((r0 + rr) * LDO);
    }
  }

  uint bits = (nanQ ? 1u : 0u) | (nanK ? 2u : 0u) | (nanV ? 4u : 0u) | (nanBias ? 8u : 0u);
  if (nanOut && bits == 0u) bits = 4u;  // overflow to inf - inf: blamed on v as the other kernels do
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
