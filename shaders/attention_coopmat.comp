#version 450
// Fused attention on matrix fragments, FlashAttention-2 style: O = softmax(scale Q K^T + mask) V
// with QK^T and PV as FM x FN x FK fragment products (fragment.glsl: VK_KHR_cooperative_matrix at
// the device's shape, VK_NV_cooperative_matrix at 16 x 16 x 16, or the plain-GLSL emulation with
// FRAG_EMULATED), fp32 accumulation and softmax.
// A workgroup is ROWS subgroups and owns FM ROWS consecutive query rows of one (batch, head); each
// subgroup owns FM of them. Q (as DKP / FK A fragments) and the output accumulator O (DVP / FN
// fragments) stay in fragments for the whole key loop; with SHARED_Q (large head dims, where Q's
// fragments and O's would not both fit the registers: AMD's compiler spilled 76 VGPRs at D 256 on
// RDNA3) Q stays in shared memory instead and each tile loads its fragments from there. K/V tiles of KEY_BLOCK keys are staged in
// shared memory with 4-element loads (vec4: 16 bytes for f32, f16vec4 for f16; scalar when a view
// is unaligned), double-buffered (STAGES = 2: one workgroup barrier per tile; the next tile is
// loaded into registers before this tile's math and stored into the other buffer after it, f16
// kept f16; attention_kv_stage.glsl) or single-buffered where shared memory is short.
// Per tile a subgroup computes S = Q K^T (KEY_BLOCK / FN accumulators). With the register softmax
// (SOFTMAX_REGISTERS, where the device's probe found a usable accumulator layout:
// fragment_layout.hpp) S stays in its fragments: each lane knows its elements' rows and columns
// (read once from a table of codes in sS), scales, masks and exponentiates them, and rows reduce
// across a lane's elements and across lanes with shuffles (ROW_REDUCE); P then goes to A
// fragments element by element where A's layout is the accumulator's, else through sP. Otherwise
// S goes to its rows of sS, then every lane takes part in the softmax (FM / LANES rows per lane where the subgroup is narrower than FM,
// LANES / FM lanes per row where wider, reduced with shuffles): scale (scaleLog2 carries log2 e,
// so exp2), masks and bias in fp32, P rounded to the fragment input type into sP, and O += P V
// (KEY_BLOCK / FK A fragments of P). Lazy rescale: a row keeps its (stale) running max until a
// tile's max exceeds it by more than LAZY_RESCALE (8, in log2 units), so P <= 2^8 (no f16
// overflow) and O is rescaled (through shared memory, one fragment at a time) only on those rare
// tiles; l and O share the stale max, so O / l and lse = (m + log2 l) ln 2 stay exact. Subgroups
// skip tiles outside their own rows' band (causal, windows); the tile loop itself is uniform
// across the workgroup (bounds from the block's first and last rows) as its barriers need.
// Head dims are padded with zeros in shared memory: DK to DKP (a multiple of FK), DV to DVP (of FN).
// With SPLIT (split-K: long key ranges with few query blocks), workgroup z covers the z-th of
// gl_NumWorkGroups.z shares of the keys (whole tiles) and writes partial records (O unnormalised,
// its running max and sum, as attention_rows.comp does) to binding 4 for attention_combine.comp.
// Shared memory: shared_layout.h (ATTN_COOPMAT_*), which the runtime sizes tiles with.
// Bindings: as attention_tiled.comp. Spec: attention_common.glsl (0 workgroup = ROWS x LANES,
// 1 DK, 2 DV, 3-7 mask/lse flags, 8 ROWS = subgroups per workgroup, 9 KEY_BLOCK (a multiple of FN
// and FK), 11 ALIGNED, 12 SPLIT, 15 STAGES, 16 LANES = subgroup size, which must be fixed, 17-20
// softcap, sinks, ALiBi; head dims 16..256 in steps of 8), 26 LOCKSTEP_SUBGROUPS, 27 SHARED_Q,
// 28 V_TRANSPOSED, 29 SOFTMAX_REGISTERS (ATTN_SOFTMAX_*), 30 LANE_FREE, 31 ELEM_FREE, and
// FRAG_SPEC_M/N/K in the KHR build. LOCKSTEP_SUBGROUPS (CPU drivers, whose subgroups are one SIMD
// vector run in lockstep): subgroupSync is a memory barrier alone. lavapipe (Mesa 23.3 and later)
// turns every control barrier, subgroup-scoped ones too, into a workgroup barrier, which only some
// subgroups reach when they skip a tile or the rescale; docs/attention.md has the reproducer.
// Dispatch: one workgroup per (b, h, block of FM ROWS rows), flat over x then y. Rows whose keys
// are all masked give zeros and lse = -inf. NaN in q, k, v, bias sets status bits 0, 1, 2, 3.
// Tolerance (tests): f16 2e-3 + 5e-3 |ref| (P rounded to f16 before PV, as in FlashAttention);
// the emulated f32 build keeps fp32 throughout: 2e-5 + 1e-4 |ref|; lse 2e-5 + 1e-5 |ref|.
// The expected performance on GPUs and what bounds it are in the README's Design section.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"
#include "shared_layout.h"

#ifdef STORAGE_F16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define FRAG_IN float16_t
const uint PAD = 8;  // 16 bytes of f16
#else
#define FRAG_IN float
const uint PAD = 4;
#endif

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

#include "fragment.glsl"

layout(constant_id = ATTN_SPEC_LOCKSTEP_SUBGROUPS) const bool LOCKSTEP_SUBGROUPS = false;
layout(constant_id = ATTN_SPEC_SHARED_Q) const uint SHARED_Q = 0;  // 1: Q's fragments from sQ each tile
layout(constant_id = ATTN_SPEC_V_TRANSPOSED) const uint V_TRANSPOSED = 0;  // 1: V tiles in sVT, [d][key]
// Register softmax (ATTN_SOFTMAX_*), and the accumulator layout it relies on, from the device's
// probe: lanes that differ only in LANE_FREE bits hold the same rows, as do a lane's elements
// that differ only in ELEM_FREE bits, and no two such groups share a row.
layout(constant_id = ATTN_SPEC_SOFTMAX_REGISTERS) const uint SOFTMAX_REGISTERS = ATTN_SOFTMAX_SHARED;
layout(constant_id = ATTN_SPEC_FRAG_LANE_FREE) const uint LANE_FREE = 0;
layout(constant_id = ATTN_SPEC_FRAG_ELEM_FREE) const uint ELEM_FREE = 0;

const uint LANES = SUBGROUP_SIZE;
const uint DKP = (DK + FK - 1) / FK * FK, DVP = (DV + FN - 1) / FN * FN;
const uint REG_S = ATTN_COOPMAT_REG_S(SOFTMAX_REGISTERS), REG_P = ATTN_COOPMAT_REG_P(SOFTMAX_REGISTERS);  // 0 or 1
const uint ACC_LEN = FM * FN / LANES;  // accumulator elements per lane (the probe checked it)
const uint LDK = ATTN_COOPMAT_LD_KV(DKP, PAD), LDV = ATTN_COOPMAT_LD_KV(DVP, PAD);
const uint LDS = ATTN_COOPMAT_LD_S(KEY_BLOCK), LDP = ATTN_COOPMAT_LD_P(ATTN_COOPMAT_P_COLS(REG_P, KEY_BLOCK, FK), PAD);
const uint LDQ = ATTN_COOPMAT_LD_Q(DKP, PAD), LDVT = ATTN_COOPMAT_LD_VT(KEY_BLOCK, PAD);
const uint ALPHA_COL = KEY_BLOCK, SUM_COL = KEY_BLOCK + 1;  // sS padding columns
const uint LPR = LANES >= FM ? LANES / FM : 1;  // lanes per row in the softmax
const uint RPL = FM * LPR / LANES;              // rows per lane
const uint KPL = KEY_BLOCK / LPR;               // keys per lane and row
const float LAZY_RESCALE = 8.0;

#if defined(STORAGE_F16) && defined(FRAG_KHR)
#define STAGE_WORDS  // K/V tiles as 16-byte words (attention_kv_stage.glsl); FK and FN are multiples of 8
shared uvec4 sK[STAGES * KEY_BLOCK * LDK / 8];
shared uvec4 sV[(1u - V_TRANSPOSED) * STAGES * KEY_BLOCK * LDV / 8 + V_TRANSPOSED];
#else
shared FRAG_IN sK[STAGES * KEY_BLOCK * LDK];
shared FRAG_IN sV[(1u - V_TRANSPOSED) * STAGES * KEY_BLOCK * LDV + V_TRANSPOSED * PAD];
#endif
// V_TRANSPOSED: each stage's V tile as DVP rows of KEY_BLOCK keys, so that a P V B fragment's
// column (one output feature over FK keys) lies in one row: AMD's matrix loads then read it in
// words instead of one 2-byte load per key (RDNA3).
shared FRAG_IN sVT[V_TRANSPOSED * STAGES * DVP * LDVT + (1u - V_TRANSPOSED) * PAD];
#define STAGE_VT sVT
// S (or, with the register softmax, the FM x FN table of element codes the lanes read their
// elements' rows and columns from), P (or, with P in registers, Q's blocks alone).
shared float sS[ATTN_COOPMAT_S_FLOATS(REG_S, FM, FN, ROWS, KEY_BLOCK)];
shared FRAG_IN sP[FM * ROWS * LDP];
shared FRAG_IN sQ[SHARED_Q * FM * ROWS * LDQ + PAD];

#include "attention_kv_stage.glsl"

// Shared memory written by the subgroup is visible to all its lanes (LOCKSTEP_SUBGROUPS: the
// lanes run together, so the memory barrier suffices).
void subgroupSync() {
  subgroupMemoryBarrierShared();
  if (!LOCKSTEP_SUBGROUPS) subgroupBarrier();
}

float rowReduceMax(float x) {
  [[unroll]] for (uint off = 1; off < LPR; off *= 2) x = max(x, subgroupShuffleXor(x, off));
  return x;
}
float rowReduceAdd(float x) {
  [[unroll]] for (uint off = 1; off < LPR; off *= 2) x += subgroupShuffleXor(x, off);
  return x;
}

// Row-wise reduction of per-element values v[ACC_LEN] (max or add) over the accumulator layout:
// across a lane's elements of one row, then across the lanes that hold the row, then back to each
// element. Every loop unrolls to constant indices and shuffle offsets.
#define ROW_REDUCE(v, OP)                                                                   \
  [[unroll]] for (uint bit = 1; bit < ACC_LEN; bit *= 2)                                    \
    if ((ELEM_FREE & bit) != 0u)                                                            \
      [[unroll]] for (uint i = 0; i < ACC_LEN; ++i)                                         \
        if ((i & bit) == 0u) {                                                              \
          const float t_ = OP(v[i], v[i | bit]);                                            \
          v[i] = t_;                                                                        \
          v[i | bit] = t_;                                                                  \
        }                                                                                   \
  [[unroll]] for (uint i = 0; i < ACC_LEN; ++i)                                             \
    if ((i & ELEM_FREE) == 0u)                                                              \
      [[unroll]] for (uint bit = 1; bit < LANES; bit *= 2)                                  \
        if ((LANE_FREE & bit) != 0u) v[i] = OP(v[i], subgroupShuffleXor(v[i], bit));        \
  [[unroll]] for (uint i = 0; i < ACC_LEN; ++i) v[i] = v[i & ~ELEM_FREE]
float addOf(float a, float b) { return a + b; }

// s = the tile's S fragment for keys c FN .. c FN + FN - 1 (Q K^T; B(d, key) = sK[key][d],
// column-major), for the tile in buffer `stage`.
#define SCORE_FRAGMENT(s, c)                                                                                     \
  s = fragFill(0.0);                                                                                             \
  FRAG_LOOP for (uint d = 0; d < DKP / FK; ++d) {                                                                \
    FragB kf;                                                                                                    \
    FRAG_LOAD_B(kf, sK, STAGE_INDEX((stage * KEY_BLOCK + (c) * FN) * LDK + d * FK), STAGE_INDEX(LDK), true);     \
    if (SHARED_Q != 0u) {                                                                                        \
      FragA qd;                                                                                                  \
      FRAG_LOAD_A(qd, sQ, r0 * LDQ + d * FK, LDQ, false);                                                        \
      s = fragMulAdd(qd, kf, s);                                                                                 \
    } else {                                                                                                     \
      s = fragMulAdd(qf[d], kf, s);                                                                              \
    }                                                                                                            \
  }

// Element c of the query row that starts at element `row` of q (zero past DK), its NaN noted in nan.
float qElement(uint row, uint c, inout bool nan) {
  const float val = c < DK ? float(q[row + c]) : 0.0;
  nan = nan || isnan(val);
  return val;
}

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
  bool nanQ = false, nanK = false, nanV = false, nanBias = false;

  // Q fragments, FK columns at a time through this subgroup's rows of sP (rows past Lq repeat the
  // last row; they are never written). SHARED_Q: this subgroup's rows of Q into sQ whole.
  FragA qf[DKP / FK];
  const uint qBase = p.qOffset + b * p.qStrideB + h * p.qStrideH;
  if (SHARED_Q != 0u) {
    for (uint x = lane; x < FM * DKP; x += LANES) {
      const uint c = x % DKP;
      sQ[(r0 + x / DKP) * LDQ + c] = FRAG_IN(qElement(qBase + min(first + r0 + x / DKP, last) * p.qStrideL, c, nanQ));
    }
    subgroupSync();  // the subgroup's rows of Q are whole before any tile loads them
  }
  FRAG_LOOP for (uint d = 0; d < (SHARED_Q != 0u ? 0u : DKP / FK); ++d) {
    [[unroll]] for (uint it = 0; it < (FM * FK + LANES - 1) / LANES; ++it) {
      const uint x = lane + it * LANES, c = d * FK + x % FK;
      if (x < FM * FK)
        sP[(r0 + x / FK) * LDP + x % FK] = FRAG_IN(qElement(qBase + min(first + r0 + x / FK, last) * p.qStrideL, c, nanQ));
    }
    subgroupSync();  // the FM x FK block is whole before it is loaded as a fragment
    FRAG_LOAD_A(qf[d], sP, r0 * LDP, LDP, false);
    subgroupSync();  // loaded before the next block overwrites it
  }
  FragAcc of[DVP / FN];
  FRAG_LOOP for (uint d = 0; d < DVP / FN; ++d) of[d] = fragFill(0.0);

  float m[RPL], l[RPL];
  [[unroll]] for (uint rr = 0; rr < RPL; ++rr) {
    m[rr] = M_START;
    l[rr] = 0.0;
  }
  float mr[ACC_LEN], lr[ACC_LEN];  // register softmax: each element's row's running max and sum
  [[unroll]] for (uint i = 0; i < ACC_LEN; ++i) {
    mr[i] = M_START;
    lr[i] = 0.0;
  }
  const uint sub = lane % LPR;

  int lo, hi;
  keyRange(b, first, last, lo, hi);
  // Keys this subgroup's own rows can see: tiles outside them are skipped (subgroup-uniform).
  if (SPLIT) {  // this workgroup's share of the keys, whole tiles
    const int splits = int(gl_NumWorkGroups.z);
    const int chunk = ((max(hi - lo, 0) + splits - 1) / splits + int(KEY_BLOCK) - 1) / int(KEY_BLOCK) * int(KEY_BLOCK);
    lo += int(gl_WorkGroupID.z) * chunk;
    hi = min(hi, lo + chunk);
  }
  int ownLo, ownHi;
  keyRange(b, min(first + r0, last), min(first + r0 + FM - 1, last), ownLo, ownHi);
  ownLo = max(ownLo, lo);
  ownHi = min(ownHi, hi);
  const uint kBase = p.kOffset + b * p.kStrideB + kvh * p.kStrideH;
  const uint vBase = p.vOffset + b * p.vStrideB + kvh * p.vStrideH;
  const uint tiles = hi > lo ? (uint(hi - lo) + KEY_BLOCK - 1) / KEY_BLOCK : 0u;
  if (REG_S != 0u)  // every accumulator element's code, row * FN + column, for the lanes to read
    for (uint x = gl_LocalInvocationIndex; x < FM * FN; x += ROWS * LANES) sS[x] = float(x);
  if (STAGES == 2 && tiles > 0) stageTile(kBase, vBase, lo, hi, 0, nanK, nanV);
  barrier();  // the first tile is staged (double-buffered) and the codes written before anyone reads them
  uint rowOf[ACC_LEN], colOf[ACC_LEN];  // register softmax: this lane's elements' rows and columns
  if (REG_S != 0u) {
    FragAcc codes;
    FRAG_LOAD_ACC(codes, sS, 0, FN);
    [[unroll]] for (uint i = 0; i < ACC_LEN; ++i) {
      const uint code = uint(FRAG_AT(codes, i));
      rowOf[i] = code / FN;
      colOf[i] = code % FN;
    }
  }

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
      FragAcc sf[KEY_BLOCK / FN];  // register softmax: S, then P, in fragments
      if (REG_S == 0u) {
        FRAG_LOOP for (uint c = 0; c < KEY_BLOCK / FN; ++c) {
          FragAcc s;
          SCORE_FRAGMENT(s, c);
          FRAG_STORE_ACC(s, sS, r0 * LDS + c * FN, LDS);
        }
        subgroupSync();  // S is in shared memory before the lanes read rows of it

        bool rescale = false;
        [[unroll]] for (uint rr = 0; rr < RPL; ++rr) {
          const uint row = r0 + lane / LPR + rr * (LANES / LPR);
          const uint i = min(first + row, last);
          float sc[KPL];
          float tileMax = MASKED;
          [[unroll]] for (uint kk = 0; kk < KPL; ++kk) {
            const uint c = sub + kk * LPR;
            const int j = j0 + int(c);
            float x = sS[row * LDS + c] * p.scaleLog2;
            if (!keyVisible(b, h, i, j, lo, hi)) {
              x = MASKED;
            } else {
              x = shapeLogit(x, b, h, i, j);
              if (HAS_BIAS) {
                const float bb = biasAt(b, h, i, j);
                nanBias = nanBias || isnan(bb);
                x = maskedLogit(x + bb * LOG2E);
              }
            }
            sc[kk] = x;
            tileMax = max(tileMax, x);
          }
          tileMax = rowReduceMax(tileMax);
          // A row with no visible key yet (its max still M_START) has O = 0 and l = 0: it takes the
          // tile's max for free (M_START again if the tile hides every key).
          const bool fresh = m[rr] == M_START;
          const bool grows = !fresh && tileMax > m[rr] + LAZY_RESCALE;
          const float mNew = fresh ? max(tileMax, M_START) : grows ? tileMax : m[rr];
          const float alpha = grows ? exp2(m[rr] - mNew) : 1.0;
          float sum = 0.0;
          [[unroll]] for (uint kk = 0; kk < KPL; ++kk) {
            const float pr = exp2(sc[kk] - mNew);
            sum += pr;  // fp32, so the LSE keeps fp32 accuracy; PV uses P rounded to FRAG_IN
            sP[row * LDP + sub + kk * LPR] = FRAG_IN(pr);
          }
          l[rr] = l[rr] * alpha + rowReduceAdd(sum);
          m[rr] = mNew;
          if (sub == 0) sS[row * LDS + ALPHA_COL] = alpha;
          rescale = rescale || grows;
        }
        subgroupSync();  // P and the rescale factors are in shared memory

        // Rare: some row's max grew past LAZY_RESCALE (subgroup-uniform: only this subgroup's).
        const bool rescaleTile = subgroupAny(rescale);
        if (rescaleTile) {
          FRAG_LOOP for (uint d = 0; d < DVP / FN; ++d) {
            FRAG_STORE_ACC(of[d], sS, r0 * LDS, LDS);
            subgroupSync();  // the fragment is in shared memory
            [[unroll]] for (uint it = 0; it < (FM * FN + LANES - 1) / LANES; ++it) {
              const uint x = lane + it * LANES, row = r0 + x / FN;
              if (x < FM * FN) sS[row * LDS + x % FN] *= sS[row * LDS + ALPHA_COL];
            }
            subgroupSync();  // rows are rescaled
            FRAG_LOAD_ACC(of[d], sS, r0 * LDS, LDS);
            subgroupSync();  // reloaded before the next fragment overwrites the block
          }
        }
      } else {
        // The register softmax: S stays in its fragments; each lane scales, masks and exponentiates
        // the elements it holds and reduces rows over the layout the probe reported (ROW_REDUCE).
        FRAG_LOOP for (uint c = 0; c < KEY_BLOCK / FN; ++c) {
          SCORE_FRAGMENT(sf[c], c);
        }
        float rowMax[ACC_LEN], rowSum[ACC_LEN], alpha[ACC_LEN];
        [[unroll]] for (uint i = 0; i < ACC_LEN; ++i) rowMax[i] = MASKED;
        FRAG_LOOP for (uint c = 0; c < KEY_BLOCK / FN; ++c) {
          [[unroll]] for (uint i = 0; i < ACC_LEN; ++i) {
            const uint qi = min(first + r0 + rowOf[i], last);
            const int j = j0 + int(c * FN + colOf[i]);
            float x = FRAG_AT(sf[c], i) * p.scaleLog2;
            if (!keyVisible(b, h, qi, j, lo, hi)) {
              x = MASKED;
            } else {
              x = shapeLogit(x, b, h, qi, j);
              if (HAS_BIAS) {
                const float bb = biasAt(b, h, qi, j);
                nanBias = nanBias || isnan(bb);
                x = maskedLogit(x + bb * LOG2E);
              }
            }
            FRAG_AT(sf[c], i) = x;
            rowMax[i] = max(rowMax[i], x);
          }
        }
        ROW_REDUCE(rowMax, max);
        bool rescale = false;
        [[unroll]] for (uint i = 0; i < ACC_LEN; ++i) {  // as the shared-memory softmax, per element
          const bool fresh = mr[i] == M_START;
          const bool grows = !fresh && rowMax[i] > mr[i] + LAZY_RESCALE;
          const float mNew = fresh ? max(rowMax[i], M_START) : grows ? rowMax[i] : mr[i];
          alpha[i] = grows ? exp2(mr[i] - mNew) : 1.0;
          mr[i] = mNew;
          rowSum[i] = 0.0;
          rescale = rescale || grows;
        }
        FRAG_LOOP for (uint c = 0; c < KEY_BLOCK / FN; ++c) {
          [[unroll]] for (uint i = 0; i < ACC_LEN; ++i) {
            const float pr = exp2(FRAG_AT(sf[c], i) - mr[i]);
            rowSum[i] += pr;  // fp32; PV uses P rounded to FRAG_IN
            FRAG_AT(sf[c], i) = pr;
          }
        }
        ROW_REDUCE(rowSum, addOf);
        [[unroll]] for (uint i = 0; i < ACC_LEN; ++i) lr[i] = lr[i] * alpha[i] + rowSum[i];
        if (subgroupAny(rescale)) {  // rare, as above; O's fragments share S's layout
          FRAG_LOOP for (uint d = 0; d < DVP / FN; ++d) {
            [[unroll]] for (uint i = 0; i < ACC_LEN; ++i) FRAG_AT(of[d], i) *= alpha[i];
          }
        }
        if (REG_P == 0u) {  // P through shared memory, where A's layout differs from S's
          FRAG_LOOP for (uint c = 0; c < KEY_BLOCK / FN; ++c) {
            FRAG_STORE_ACC_IN(sf[c], sP, r0 * LDP + c * FN, LDP);
          }
          subgroupSync();  // P is in shared memory before it is loaded as A fragments
        }
      }

      // O += P V: A = P (FM rows x FK keys), B(key, d) = sV[key][d], row-major.
      FRAG_LOOP for (uint c = 0; c < KEY_BLOCK / FK; ++c) {
        FragA pf;
        if (REG_P != 0u) {  // A's layout is S's (FK = FN): element by element
          pf = fragFillA(0.0);
          [[unroll]] for (uint i = 0; i < ACC_LEN; ++i) FRAG_AT(pf, i) = FRAG_IN(FRAG_AT(sf[c], i));
        } else {
          FRAG_LOAD_A(pf, sP, r0 * LDP + c * FK, LDP, false);
        }
        FRAG_LOOP for (uint d = 0; d < DVP / FN; ++d) {
          FragB vf;
          if (V_TRANSPOSED != 0u) {
            FRAG_LOAD_B(vf, sVT, (stage * DVP + d * FN) * LDVT + c * FK, LDVT, true);
          } else {
            FRAG_LOAD_B(vf, sV, STAGE_INDEX((stage * KEY_BLOCK + c * FK) * LDV + d * FN), STAGE_INDEX(LDV), false);
          }
          of[d] = fragMulAdd(pf, vf, of[d]);
        }
      }
      if (REG_P == 0u) subgroupSync();  // P has been read before the next tile's softmax overwrites it
    }
    if (STAGES == 2) {
      // The other buffer was last read in tile t - 1, which the barrier ending it closed.
      if (t + 1 < tiles) storeTile(next, (t & 1u) ^ 1u, nanK, nanV);
      barrier();  // tile t + 1 is staged and tile t's buffer is free again
    }
  }

  // Each row's output scale (1 / l, sinks included) next to the row, lse, then O times it one
  // fragment at a time through sS. Split-K: the row's partial record instead, O unscaled.
  bool nanOut = false;
  const uint rec0 = ((gl_WorkGroupID.z * p.batch + b) * p.heads + h) * p.lq;  // split-K records of row 0
  const uint oBase = p.oOffset + b * p.oStrideB + h * p.oStrideH;
  if (REG_S != 0u) {
    // Register softmax: each element scales itself; the element at column 0 writes its row's
    // records; O goes straight from the fragments to memory.
    float outScale[ACC_LEN];
    [[unroll]] for (uint i = 0; i < ACC_LEN; ++i) {
      const uint row = r0 + rowOf[i];
      const bool rowWriter = colOf[i] == 0u && first + row < p.lq;
      outScale[i] = 1.0;
      if (SPLIT) {
        if (rowWriter) {
          lse[(rec0 + first + row) * (DV + 2) + DV] = mr[i];
          lse[(rec0 + first + row) * (DV + 2) + DV + 1] = lr[i];
          nanOut = nanOut || isnan(lr[i]);
        }
      } else {
        float scale, lseLog2;
        finishRow(h, mr[i], lr[i], scale, lseLog2);
        outScale[i] = scale;
        if (WRITE_LSE && rowWriter) lse[(b * p.heads + h) * p.lq + first + row] = lseLog2 * LN2;
      }
    }
    FRAG_LOOP for (uint d = 0; d < DVP / FN; ++d) {
      [[unroll]] for (uint i = 0; i < ACC_LEN; ++i) {
        const uint row = r0 + rowOf[i], col = d * FN + colOf[i];
        if (first + row >= p.lq || col >= DV) continue;
        const float acc = FRAG_AT(of[d], i);
        if (SPLIT) {
          nanOut = nanOut || isnan(acc);
          lse[(rec0 + first + row) * (DV + 2) + col] = acc;
        } else {
          const float val = outScale[i] == 0.0 ? 0.0 : acc * outScale[i];  // 0: no (or a NaN) sum
          nanOut = nanOut || isnan(val);
          o[oBase + (first + row) * p.oStrideL + col] = TO_ELEM(val);
        }
      }
    }
  }
  [[unroll]] for (uint rr = 0; rr < (REG_S != 0u ? 0u : RPL); ++rr) {
    const uint row = r0 + lane / LPR + rr * (LANES / LPR);
    if (SPLIT && sub == 0 && first + row < p.lq) {
      lse[(rec0 + first + row) * (DV + 2) + DV] = m[rr];
      lse[(rec0 + first + row) * (DV + 2) + DV + 1] = l[rr];
      nanOut = nanOut || isnan(l[rr]);
    } else if (!SPLIT && sub == 0) {
      float scale, lseLog2;
      finishRow(h, m[rr], l[rr], scale, lseLog2);
      sS[row * LDS + SUM_COL] = scale;
      if (WRITE_LSE && first + row < p.lq) lse[(b * p.heads + h) * p.lq + first + row] = lseLog2 * LN2;
    }
  }
  FRAG_LOOP for (uint d = 0; d < (REG_S != 0u ? 0u : DVP / FN); ++d) {
    FRAG_STORE_ACC(of[d], sS, r0 * LDS, LDS);
    subgroupSync();  // the fragment and the row sums are in shared memory
    [[unroll]] for (uint it = 0; it < (FM * FN + LANES - 1) / LANES; ++it) {
      const uint x = lane + it * LANES, row = r0 + x / FN, col = d * FN + x % FN;
      if (x >= FM * FN) {
      } else if (SPLIT && first + row < p.lq && col < DV) {
        const float val = sS[row * LDS + x % FN];
        nanOut = nanOut || isnan(val);
        lse[(rec0 + first + row) * (DV + 2) + col] = val;
      } else if (first + row < p.lq && col < DV) {
        const float scale = sS[row * LDS + SUM_COL];  // 0 for a row with no (or a NaN) sum: zeros
        const float val = scale == 0.0 ? 0.0 : sS[row * LDS + x % FN] * scale;
        nanOut = nanOut || isnan(val);
        o[oBase + (first + row) * p.oStrideL + col] = TO_ELEM(val);
      }
    }
    subgroupSync();  // read before the next fragment overwrites the block
  }

  uint bits = (nanQ ? 1u : 0u) | (nanK ? 2u : 0u) | (nanV ? 4u : 0u) | (nanBias ? 8u : 0u);
  if (nanOut && bits == 0u) bits = 4u;  // overflow to inf - inf: blamed on v as the other kernels do
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
