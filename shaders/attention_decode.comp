#version 450
// Storage: f32, f16
// Decode attention for GPUs (few query rows, many keys): O = softmax(scale * Q K^T + mask) V with
// the online softmax in fp32, reading K and V at memory bandwidth.
// A workgroup owns ROWS of the kvGroup * Lq query rows packed across the query heads that share
// one KV head (row x is query row x % Lq of head kvh * kvGroup + x / Lq), so every K/V byte it
// reads feeds all of them. Its lanes form key groups of D_LANES consecutive lanes of a subgroup;
// a key group takes one key at a time, lane t of it holding 16-byte words t, t + D_LANES, ... of
// the key's row (f32: 4 elements a word, f16: 8), so the lanes of a subgroup read whole rows of
// consecutive keys (coalesced 16-byte loads) and each lane keeps only its slice of q and of the
// output accumulators (ROWS * (DK + DV) / D_LANES floats). A score is the lanes' partial dot
// products summed by shuffles. Each key group runs its own online softmax over keys
// g, g + G, ... of every step of KEY_BLOCK * G keys (G key groups per workgroup); the groups of a
// subgroup are merged by shuffles, the subgroups through shared memory, and the final merge runs
// across the workgroup's invocations, one per (row, output element).
// With SPLIT, workgroup z covers the z-th share of the keys and writes partial records (as
// attention_rows.comp) that attention_combine.comp finishes.
// Bindings: as attention_rows.comp (0 q, 1 k, 2 v, 3 out, 4 lse or partial records, 5 bias,
// 6 keep mask, 7 key lengths, 8 status, 9 sinks, 10 ALiBi slopes, 11 block table, 12 unused).
// Push: AttentionParams. Spec: attention_common.glsl (0 workgroup, a multiple of SUBGROUP_SIZE;
// 1 DK, 2 DV: multiples of the word's elements, whose word counts D_LANES divides; 3-7 mask/lse
// flags; 8 ROWS; 9 KEY_BLOCK; 12 SPLIT; 16 SUBGROUP_SIZE, the pipeline's fixed or required size;
// 17-20 softcap, sinks, ALiBi; 21 D_LANES, a power of two up to SUBGROUP_SIZE; 22 PAGE_SIZE,
// 23 ALIGN_KEYLEN). Every K and V row starts at a multiple of the word's elements (checked on the
// host).
// Dispatch: one workgroup per (b, kvh, block of ROWS packed rows), flat over x then y; z splits.
// Rows whose keys are all masked give zeros and lse = -inf. NaN in q, k, v, bias sets status bits
// 0, 1, 2, 3.
// Tolerance (tests): as attention_rows.comp.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_vote : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { AttentionParams p; };
layout(std430, set = 0, binding = ATTN_BINDING_Q) readonly buffer Q { ELEM q[]; };
layout(std430, set = 0, binding = ATTN_BINDING_O) writeonly buffer O { ELEM o[]; };
layout(std430, set = 0, binding = ATTN_BINDING_LSE) writeonly buffer Lse { float lse[]; };
// K and V as 16-byte words: vec4 (f32), or 8 halves in a uvec4 unpacked to fp32 (f16).
#ifdef STORAGE_F16
#define WORD uvec4
const uint WORD_ELEMS = 8;
vec4 wordPart(uvec4 w, uint half_) {
  return half_ == 0u ? vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y)) : vec4(unpackHalf2x16(w.z), unpackHalf2x16(w.w));
}
#else
#define WORD vec4
const uint WORD_ELEMS = 4;
vec4 wordPart(vec4 w, uint half_) { return w; }
#endif
layout(std430, set = 0, binding = ATTN_BINDING_K) readonly buffer K { WORD kWords[]; };
layout(std430, set = 0, binding = ATTN_BINDING_V) readonly buffer V { WORD vWords[]; };
#define ATTN_BIAS_BINDING ATTN_BINDING_BIAS
#define ATTN_KEEP_BINDING ATTN_BINDING_KEEP
#define ATTN_KEYLEN_BINDING ATTN_BINDING_KEYLEN
#define ATTN_SINKS_BINDING ATTN_BINDING_SINKS
#define ATTN_ALIBI_BINDING ATTN_BINDING_ALIBI
#define ATTN_SEQS_BINDING ATTN_BINDING_SEQS
#include "attention_common.glsl"
#define KV_ALIGNMENT WORD_ELEMS
#include "attention_kv_row.glsl"
STATUS_BUFFER(ATTN_BINDING_STATUS)

#define D_LANES ROW_LANES
const uint PARTS = WORD_ELEMS / 4;              // vec4s per word
const uint WK = DK / WORD_ELEMS / D_LANES;      // words of a q / key row per lane
const uint WV = DV / WORD_ELEMS / D_LANES;      // words of an output / value row per lane
const uint GROUPS_PER_SUBGROUP = SUBGROUP_SIZE / D_LANES;
const uint GROUPS = WG_SIZE / D_LANES;          // key groups per workgroup
const uint SUBGROUPS = WG_SIZE / SUBGROUP_SIZE;

// Per subgroup and row: the merged accumulator (DV floats), running max and running sum.
shared float mergedAcc[SUBGROUPS * ROWS * DV];
shared float mergedMax[SUBGROUPS * ROWS];
shared float mergedSum[SUBGROUPS * ROWS];

// Element offset (a multiple of the word) of lane t's x-th word of a row.
uint laneElement(uint t, uint x) { return (t + D_LANES * x) * WORD_ELEMS; }

void main() {
  const uint owners = p.heads / p.kvGroup;
  const uint ownerRows = p.kvGroup * p.lq;
  const uint blocks = (ownerRows + ROWS - 1) / ROWS;
  const uint groups = p.batch * owners * blocks;
  if (flatGroupIndex() >= groups) return;  // uniform across the workgroup
  const uint group = flatGroupIndex();
  const uint kvh = (group / blocks) % owners;
  const uint b = group / blocks / owners;
  const uint firstRow = (group % blocks) * ROWS;
  const uint lastRow = min(firstRow + ROWS, ownerRows) - 1;

  const uint sub = gl_SubgroupID;
  const uint t = gl_SubgroupInvocationID % D_LANES;  // this lane's slice of every row
  const uint keyGroup = sub * GROUPS_PER_SUBGROUP + gl_SubgroupInvocationID / D_LANES;

  // Head and query row of each packed row (rows past the block's end repeat its last row).
  uint hs[ROWS], is[ROWS];
  uint iLo = p.lq, iHi = 0;
  [[unroll]] for (uint r = 0; r < ROWS; ++r) {
    const uint x = min(firstRow + r, lastRow);
    hs[r] = kvh * p.kvGroup + x / p.lq;
    is[r] = x % p.lq;
    iLo = min(iLo, is[r]);
    iHi = max(iHi, is[r]);
  }

  // This lane's slice of each row's q, pre-scaled into log2 units (the softmax uses exp2).
  vec4 qr[ROWS * WK * PARTS];
  vec4 acc[ROWS * WV * PARTS];
  float m[ROWS], l[ROWS];
  bool nanQ = false;
  [[unroll]] for (uint r = 0; r < ROWS; ++r) {
    const uint row = p.qOffset + b * p.qStrideB + hs[r] * p.qStrideH + is[r] * p.qStrideL;
    [[unroll]] for (uint x = 0; x < WK; ++x)
      [[unroll]] for (uint part = 0; part < PARTS; ++part) {
        const uint e = row + laneElement(t, x) + 4 * part;
        const vec4 v4 = vec4(float(q[e]), float(q[e + 1]), float(q[e + 2]), float(q[e + 3]));
        nanQ = nanQ || any(isnan(v4));
        qr[(r * WK + x) * PARTS + part] = v4 * p.scaleLog2;
      }
    [[unroll]] for (uint x = 0; x < WV * PARTS; ++x) acc[r * WV * PARTS + x] = vec4(0.0);
    m[r] = M_START;
    l[r] = 0.0;
  }

  int lo, hi;
  keyRange(b, iLo, iHi, lo, hi);
  if (SPLIT) {  // this workgroup's share of the keys, whole steps
    const int splits = int(gl_NumWorkGroups.z);
    const int step = int(KEY_BLOCK * GROUPS);
    const int chunk = ((max(hi - lo, 0) + splits - 1) / splits + step - 1) / step * step;
    lo += int(gl_WorkGroupID.z) * chunk;
    hi = min(hi, lo + chunk);
  }
  const uint kLen = uint(kWords.length()) * WORD_ELEMS, vLen = uint(vWords.length()) * WORD_ELEMS;
  bool nanScore = false, nanBias = false;
  // Every key group runs every step (a uniform loop: the shuffles need all lanes); keys past hi
  // are clamped to a visible one and masked.
  const int span = int(KEY_BLOCK * GROUPS);
  const int steps = (max(hi - lo, 0) + span - 1) / span;
  for (int step = 0; step < steps; ++step) {
    int js[KEY_BLOCK];
    WORD kw[KEY_BLOCK * WK], vw[KEY_BLOCK * WV];
    // Both rows' words are loaded before any math, so the loads of a step overlap.
    [[unroll]] for (uint kk = 0; kk < KEY_BLOCK; ++kk) {
      js[kk] = lo + step * span + int(kk * GROUPS + keyGroup);
      const uint j = uint(min(js[kk], hi - 1));
      const uint kRow = kvRow(p.kOffset, p.kStrideB, p.kStrideH, p.kStrideL, kLen, DK, b, kvh, j) / WORD_ELEMS;
      const uint vRow = kvRow(p.vOffset, p.vStrideB, p.vStrideH, p.vStrideL, vLen, DV, b, kvh, j) / WORD_ELEMS;
      [[unroll]] for (uint x = 0; x < WK; ++x) kw[kk * WK + x] = kWords[kRow + t + D_LANES * x];
      [[unroll]] for (uint x = 0; x < WV; ++x) vw[kk * WV + x] = vWords[vRow + t + D_LANES * x];
    }
    float s[ROWS * KEY_BLOCK];
    [[unroll]] for (uint kk = 0; kk < KEY_BLOCK; ++kk)
      [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        vec4 d4 = vec4(0.0);
        [[unroll]] for (uint x = 0; x < WK; ++x)
          [[unroll]] for (uint part = 0; part < PARTS; ++part)
            d4 = fma(qr[(r * WK + x) * PARTS + part], wordPart(kw[kk * WK + x], part), d4);
        s[r * KEY_BLOCK + kk] = d4.x + d4.y + d4.z + d4.w;
      }
    // Sum the key group's partial dots (a butterfly: every lane ends with the same bits).
    [[unroll]] for (uint offset = 1; offset < D_LANES; offset <<= 1)
      [[unroll]] for (uint x = 0; x < ROWS * KEY_BLOCK; ++x) s[x] += subgroupShuffleXor(s[x], offset);
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
      const uint h = hs[r], i = is[r];
      float blockMax = M_START;
      [[unroll]] for (uint kk = 0; kk < KEY_BLOCK; ++kk) {
        float sc = s[r * KEY_BLOCK + kk];
        nanScore = nanScore || isnan(sc);
        if (!keyVisible(b, h, i, js[kk], lo, hi)) {
          sc = MASKED;
        } else {
          sc = shapeLogit(sc, b, h, i, js[kk]);
          if (HAS_BIAS) {
            const float bb = biasAt(b, h, i, js[kk]);
            nanBias = nanBias || isnan(bb);
            sc = maskedLogit(sc + bb * LOG2E);
          }
        }
        s[r * KEY_BLOCK + kk] = sc;
        blockMax = max(blockMax, sc);
      }
      const float mNew = max(m[r], blockMax);
      const float alpha = exp2(m[r] - mNew);
      m[r] = mNew;
      float sum = l[r] * alpha;
      [[unroll]] for (uint kk = 0; kk < KEY_BLOCK; ++kk) {
        const float pr = exp2(s[r * KEY_BLOCK + kk] - mNew);
        s[r * KEY_BLOCK + kk] = pr;
        sum += pr;
      }
      l[r] = sum;
      [[unroll]] for (uint x = 0; x < WV; ++x)
        [[unroll]] for (uint part = 0; part < PARTS; ++part) {
          vec4 a = acc[(r * WV + x) * PARTS + part] * alpha;
          [[unroll]] for (uint kk = 0; kk < KEY_BLOCK; ++kk)
            a = fma(vec4(s[r * KEY_BLOCK + kk]), wordPart(vw[kk * WV + x], part), a);
          acc[(r * WV + x) * PARTS + part] = a;
        }
    }
  }

  // Merge the key groups of this subgroup: lanes holding the same slice, D_LANES apart.
  [[unroll]] for (uint offset = D_LANES; offset < SUBGROUP_SIZE; offset <<= 1)
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
      const float mOther = subgroupShuffleXor(m[r], offset);
      const float lOther = subgroupShuffleXor(l[r], offset);
      const float mNew = max(m[r], mOther);
      const float wSelf = exp2(m[r] - mNew), wOther = exp2(mOther - mNew);
      l[r] = l[r] * wSelf + lOther * wOther;
      m[r] = mNew;
      [[unroll]] for (uint x = 0; x < WV * PARTS; ++x) {
        const vec4 other = subgroupShuffleXor(acc[r * WV * PARTS + x], offset);
        acc[r * WV * PARTS + x] = acc[r * WV * PARTS + x] * wSelf + other * wOther;
      }
    }
  // The subgroup's first key group hands its rows to shared memory.
  if (gl_SubgroupInvocationID < D_LANES) {
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
      const uint slot = sub * ROWS + r;
      [[unroll]] for (uint x = 0; x < WV; ++x)
        [[unroll]] for (uint part = 0; part < PARTS; ++part) {
          const vec4 a = acc[(r * WV + x) * PARTS + part];
          const uint e = slot * DV + laneElement(t, x) + 4 * part;
          mergedAcc[e] = a.x;
          mergedAcc[e + 1] = a.y;
          mergedAcc[e + 2] = a.z;
          mergedAcc[e + 3] = a.w;
        }
      if (t == 0) {
        mergedMax[slot] = m[r];
        mergedSum[slot] = l[r];
      }
    }
  }
  nanScore = subgroupAny(nanScore);
  nanBias = subgroupAny(nanBias);
  nanQ = subgroupAny(nanQ);
  // Orders the subgroups' shared-memory records before the workgroup-wide merge reads them.
  barrier();

  // One invocation per (row, output element): merge the subgroups' records and write.
  bool nanOut = false;
  for (uint x = gl_LocalInvocationIndex; x < ROWS * DV; x += WG_SIZE) {
    const uint r = x / DV, e = x % DV;
    if (firstRow + r > lastRow) break;  // rows past the block's end (x grows with r)
    float mAll = M_START;
    [[dont_unroll]] for (uint g = 0; g < SUBGROUPS; ++g) mAll = max(mAll, mergedMax[g * ROWS + r]);
    float sum = 0.0, value = 0.0;
    [[dont_unroll]] for (uint g = 0; g < SUBGROUPS; ++g) {
      const float w = exp2(mergedMax[g * ROWS + r] - mAll);
      sum += mergedSum[g * ROWS + r] * w;
      value += mergedAcc[(g * ROWS + r) * DV + e] * w;
    }
    const uint packed = firstRow + r;
    const uint h = kvh * p.kvGroup + packed / p.lq, i = packed % p.lq;
    if (SPLIT) {
      const uint rec = (((gl_WorkGroupID.z * p.batch + b) * p.heads + h) * p.lq + i) * (DV + 2);
      nanOut = nanOut || isnan(value);
      lse[rec + e] = value;
      if (e == 0) {
        lse[rec + DV] = mAll;
        lse[rec + DV + 1] = sum;
      }
    } else {
      float inv, lseLog2;
      finishRow(h, mAll, sum, inv, lseLog2);
      const float out_ = value * inv;
      nanOut = nanOut || isnan(out_);
      o[p.oOffset + b * p.oStrideB + h * p.oStrideH + i * p.oStrideL + e] = TO_ELEM(out_);
      if (WRITE_LSE && e == 0) lse[lseIndex(b, h, i)] = lseLog2 * LN2;
    }
  }
  // A NaN score came from q or k: blame q if any lane's slice of it holds one.
  if (nanScore || nanBias || nanOut) {
    uint bits = nanScore ? (nanQ ? 1u : 2u) : 0u;
    if (nanBias) bits |= 8u;
    if (nanOut && !nanScore && !nanBias) bits |= 4u;
    atomicOr(status[p.statusSlot], bits);
  }
}
