#version 450
// Storage: f32, f16
// Fused attention for CPU drivers (lavapipe): O = softmax(scale * Q K^T + mask) V with the online
// (running max, running sum) softmax in fp32, never forming the Lq x Lk matrix.
// A workgroup (one subgroup) owns WG_SIZE * ROWS consecutive query rows of one (batch, head),
// each invocation ROWS of them. The workgroup walks the keys its rows can see in step, KEY_BLOCK
// at a time: every K/V vec4 loaded feeds all ROWS rows of the invocation, the running max and the
// accumulator rescale happen once per key block, there is no shared memory and no barrier
// (on lavapipe, 4 rows per invocation measured 10x the naive kernel, 19x a shared-memory tile). Head-dim, row and key-block loops are unrolled at
// pipeline creation, so the one loop that runs on the device is the key-block loop,
// ceil(Lk / KEY_BLOCK) iterations, which the runtime keeps below llvmpipe's loop limit.
// K and V may be stored as bf16, Q8_0 or Q4_0 instead (KV_BF16, KV_Q8_0, KV_Q4_0: kv_formats.glsl).
// Bindings: 0 q, 1 k, 2 v (ELEM, or the K/V format; read), 3 out (ELEM, write), 4 lse (f32 [B, Hq, Lq], write; any
// buffer when unused), 5 bias (f32), 6 keep mask (i32), 7 key lengths (i32 [B]), 8 status,
// 9 sinks (f32 [Hq]), 10 ALiBi slopes (f32 [Hq] or [B, Hq]), 11 block table (i32 [B, Lk / PAGE_SIZE],
// with PAGE_SIZE: a paged K/V cache).
// Push: AttentionParams. Spec: attention_common.glsl (0 workgroup, 1 DK, 2 DV (any head dims
// 1..576), 3-7 mask/lse flags, 8 ROWS, 9 KEY_BLOCK, 11 ALIGNED, 17-20 softcap, sinks, ALiBi,
// 22 PAGE_SIZE, 23 ALIGN_KEYLEN, 24 VARLEN: binding 12 gives the sequences, 25 QO_ALIGNED).
// Dispatch: one workgroup per (b, h, block of WG_SIZE * ROWS rows), flat over x then y.
// With LANE_KEYS (decode, few query rows) the workgroup's lanes share ROWS rows and take every
// WG_SIZE-th key block instead, merged with subgroup ops at the end. Its rows are packed across the
// query heads that share a KV head (GQA): a workgroup owns ROWS of the kvGroup * Lq rows of one
// (batch, KV head), row x being query row x % Lq of head kvh * kvGroup + x / Lq, so each K/V load
// feeds every head of the group. Dispatch: one workgroup per (b, kvh, block of ROWS packed rows).
// With SPLIT, workgroup z covers the z-th of gl_NumWorkGroups.z shares of the keys and writes
// partial records to binding 4 instead (see below); attention_combine.comp finishes them.
// Rows whose keys are all masked give zeros and lse = -inf. NaN in q, k, v, bias sets status
// bits 0, 1, 2, 3.
// Tolerance (tests): |o - ref| <= 2e-5 + 1e-4 |ref| (f32 storage), 2e-3 + 5e-3 |ref| (f16 storage,
// compared with the reference on the fp16-rounded inputs); lse within 2e-5 + 1e-5 |ref|.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { AttentionParams p; };
layout(std430, set = 0, binding = ATTN_BINDING_Q) readonly buffer Q { ELEM q[]; };
#if defined(KV_BF16) || defined(KV_Q8_0) || defined(KV_Q4_0)
// K and V in a storage format of their own, decoded by kv_formats.glsl.
layout(std430, set = 0, binding = ATTN_BINDING_K) readonly buffer KWords { uint kWords[]; };
layout(std430, set = 0, binding = ATTN_BINDING_V) readonly buffer VWords { uint vWords[]; };
layout(std430, set = 0, binding = ATTN_BINDING_K) readonly buffer KPairs { uvec2 kPairs[]; };
layout(std430, set = 0, binding = ATTN_BINDING_V) readonly buffer VPairs { uvec2 vPairs[]; };
#define K_WORDS kWords
#define V_WORDS vWords
#define K_PAIRS kPairs
#define V_PAIRS vPairs
#define KV_ALIGNMENT (KV_BLOCK == 1u ? 4u : KV_BLOCK)
#define K_ELEMENTS kvElements(uint(kWords.length()))
#define V_ELEMENTS kvElements(uint(vWords.length()))
#define LOAD_K4(row, d) loadKV4(true, row, d, DK)
#define LOAD_V4(row, d) loadKV4(false, row, d, DV)
#else
layout(std430, set = 0, binding = ATTN_BINDING_K) readonly buffer K { ELEM k[]; };
layout(std430, set = 0, binding = ATTN_BINDING_V) readonly buffer V { ELEM v[]; };
// The same K and V seen as vec4s, read when ALIGNED: one 16-byte load per lane instead of four
// scalar gathers (2x the whole kernel on lavapipe).
layout(std430, set = 0, binding = ATTN_BINDING_K) readonly buffer K4 { ELEM4 k4[]; };
layout(std430, set = 0, binding = ATTN_BINDING_V) readonly buffer V4 { ELEM4 v4[]; };
#define KV_ALIGNMENT 4u
#define K_ELEMENTS uint(k.length())
#define V_ELEMENTS uint(v.length())
#define LOAD_K4(row, d) (ALIGNED ? vec4(k4[(row) / 4 + (d)]) : LOAD_HEAD4(k, row, d, DK))
#define LOAD_V4(row, d) (ALIGNED ? vec4(v4[(row) / 4 + (d)]) : LOAD_HEAD4(v, row, d, DV))
#endif
layout(std430, set = 0, binding = ATTN_BINDING_O) writeonly buffer O { ELEM o[]; };
// Q and O seen as vec4s, used when QO_ALIGNED: on lavapipe every q load and o store is a per-lane
// access with its own bounds check, unrolled over the ROWS * D elements, and a vec4 shares one
// lane's setup between 4 elements (Mesa 25: the pipeline builds 1.6x faster at 4 rows, D 64).
layout(std430, set = 0, binding = ATTN_BINDING_Q) readonly buffer Q4 { ELEM4 q4[]; };
layout(std430, set = 0, binding = ATTN_BINDING_O) writeonly buffer O4 { ELEM4 o4[]; };
layout(std430, set = 0, binding = ATTN_BINDING_LSE) writeonly buffer Lse { float lse[]; };
#define ATTN_BIAS_BINDING ATTN_BINDING_BIAS
#define ATTN_KEEP_BINDING ATTN_BINDING_KEEP
#define ATTN_KEYLEN_BINDING ATTN_BINDING_KEYLEN
#define ATTN_SINKS_BINDING ATTN_BINDING_SINKS
#define ATTN_ALIBI_BINDING ATTN_BINDING_ALIBI
#define ATTN_SEQS_BINDING ATTN_BINDING_SEQS
#include "attention_common.glsl"
#if defined(KV_BF16) || defined(KV_Q8_0) || defined(KV_Q4_0)
#include "kv_formats.glsl"
#endif
STATUS_BUFFER(ATTN_BINDING_STATUS)
#include "attention_kv_row.glsl"

// (x + y) mod n for x, y < n, without 32-bit overflow.
uint addMod(uint x, uint y, uint n) { return x >= n - y ? x - (n - y) : x + y; }

// Workgroup g of n takes group (g * m) mod n, m after the offsets in the SEQS binding (VARLEN):
// the host picks a multiplier coprime to n near 0.618 n, so that any contiguous range of workgroups covers the groups evenly (Fibonacci
// hashing). CPU drivers give each thread a contiguous range of workgroups; a packed batch lays its
// sequences out one after another, and without this the long sequences' groups land on one thread
// (lavapipe: 0.65x the same sequences as separate dispatches).
uint spreadGroup(uint g, uint n) {
  const uint m = uint(seqs[2u * (p.batch + 1u)]);
  uint r = 0u, a = g;
  [[unroll]] for (uint bit = 0u; bit < 32u; ++bit) {  // double and add over the multiplier's bits
    if (((m >> bit) & 1u) != 0u) r = addMod(r, a, n);
    a = addMod(a, a, n);
  }
  return r;
}

void main() {
  // The workgroup owns one (batch, head) and WG_SIZE * ROWS consecutive rows; each invocation ROWS
  // of them. Batch, head and the key loop are uniform across the workgroup, so every K/V address
  // is too: llvmpipe then loads each K/V element once per subgroup and broadcasts it instead of
  // gathering per lane.
  // A workgroup's owner is a query head, or in decode mode a KV head with its packed rows.
  const uint lane = gl_LocalInvocationID.x;
  const uint rowsPerGroup = LANE_KEYS ? ROWS : WG_SIZE * ROWS;
  const uint owners = LANE_KEYS ? p.heads / p.kvGroup : p.heads;
  const uint ownerRows = LANE_KEYS ? p.kvGroup * p.lq : p.lq;
  const uint blocks = (ownerRows + rowsPerGroup - 1) / rowsPerGroup;
  const uint groups = p.batch * owners * blocks;
  if (flatGroupIndex() >= groups) return;
  const uint group = VARLEN ? spreadGroup(flatGroupIndex(), groups) : flatGroupIndex();
  const uint owner = (group / blocks) % owners;
  const uint b = group / blocks / owners;
  const uint kvh = LANE_KEYS ? owner : owner / p.kvGroup;
  // A packed batch: this sequence's own query rows (blocks past them have nothing to do).
  loadSequence(b);
  const uint seqRows = uint(queryCount(b));
  const uint groupFirst = (group % blocks) * rowsPerGroup;
  if (VARLEN && (seqRows == 0u || (!LANE_KEYS && groupFirst >= seqRows))) return;
  const uint groupLast = min(groupFirst + rowsPerGroup, LANE_KEYS ? ownerRows : min(ownerRows, seqRows)) - 1;
  const uint ownFirst = LANE_KEYS ? groupFirst : groupFirst + lane * ROWS;  // may be past the end
  const uint first = min(ownFirst, groupLast);
  const uint last = min(first + ROWS - 1, groupLast);
  // Head and query row of each of this invocation's rows (rows past the end repeat the last), and
  // the query rows the workgroup spans, which bound the keys it can see.
  // In decode mode with VARLEN a packed row past its sequence's query count stands in as the
  // sequence's last row and is not written (`valid`).
  uint hs[ROWS], is[ROWS];
  bool valid[ROWS];
  uint iLo = LANE_KEYS ? p.lq : groupFirst, iHi = LANE_KEYS ? 0 : groupLast;
  [[unroll]] for (uint r = 0; r < ROWS; ++r) {
    const uint x = min(first + r, last);
    hs[r] = LANE_KEYS ? kvh * p.kvGroup + x / p.lq : owner;
    is[r] = LANE_KEYS ? min(x % p.lq, seqRows - 1) : x;
    valid[r] = ownFirst + r <= groupLast && (!LANE_KEYS || x % p.lq < seqRows);
    if (LANE_KEYS) {
      iLo = min(iLo, is[r]);
      iHi = max(iHi, is[r]);
    }
  }

  // Queries pre-scaled into log2 units so the softmax uses exp2.
  vec4 qr[ROWS * DK4];
  vec4 acc[ROWS * DV4];
  float m[ROWS], l[ROWS];
  [[unroll]] for (uint r = 0; r < ROWS; ++r) {
    const uint row = p.qOffset + b * p.qStrideB + hs[r] * p.qStrideH + (firstQueryRow(b) + is[r]) * p.qStrideL;
    [[unroll]] for (uint d = 0; d < DK4; ++d)
      qr[r * DK4 + d] = (QO_ALIGNED ? vec4(q4[row / 4 + d]) : LOAD_HEAD4(q, row, d, DK)) * p.scaleLog2;
    [[unroll]] for (uint d = 0; d < DV4; ++d) acc[r * DV4 + d] = vec4(0.0);
    m[r] = M_START;
    l[r] = 0.0;
  }

  // Keys any row of the workgroup sees; per-row limits are applied by keyVisible.
  int lo, hi;
  keyRange(b, iLo, iHi, lo, hi);
  if (SPLIT) {  // this workgroup's share of the keys, whole key blocks
    const int splits = int(gl_NumWorkGroups.z);
    const int chunk = ((max(hi - lo, 0) + splits - 1) / splits + int(KEY_BLOCK) - 1) / int(KEY_BLOCK) * int(KEY_BLOCK);
    lo += int(gl_WorkGroupID.z) * chunk;
    hi = min(hi, lo + chunk);
  }
  const uint kLen = K_ELEMENTS, vLen = V_ELEMENTS;
  bool nanScore = false, nanBias = false;
  const int keyStride = int(LANE_KEYS ? WG_SIZE * KEY_BLOCK : KEY_BLOCK);
  for (int j0 = lo + (LANE_KEYS ? int(lane * KEY_BLOCK) : 0); j0 < hi; j0 += keyStride) {
    float s[ROWS * KEY_BLOCK];
    [[unroll]] for (uint kk = 0; kk < KEY_BLOCK; ++kk) {
      const int j = j0 + int(kk);
      // Clamped to a visible key: in bounds, masked below.
      const uint kRow = kvRow(p.kOffset, p.kStrideB, p.kStrideH, p.kStrideL, kLen, DK, b, kvh, uint(min(j, hi - 1)));
      vec4 dot4[ROWS];
      [[unroll]] for (uint r = 0; r < ROWS; ++r) dot4[r] = vec4(0.0);
      [[unroll]] for (uint d = 0; d < DK4; ++d) {
        const vec4 kv = LOAD_K4(kRow, d);
        [[unroll]] for (uint r = 0; r < ROWS; ++r) dot4[r] = fma(qr[r * DK4 + d], kv, dot4[r]);
      }
      [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        const uint h = hs[r], i = is[r];
        float sc = dot4[r].x + dot4[r].y + dot4[r].z + dot4[r].w;
        nanScore = nanScore || isnan(sc);
        if (!keyVisible(b, h, i, j, lo, hi)) {
          sc = MASKED;
        } else {
          sc = shapeLogit(sc, b, h, i, j);
          if (HAS_BIAS) {
            const float bb = biasAt(b, h, i, j);
            nanBias = nanBias || isnan(bb);
            sc = maskedLogit(sc + bb * LOG2E);
          }
        }
        s[r * KEY_BLOCK + kk] = sc;
      }
    }
    // One rescale per key block: new max, then the block's probabilities against it.
    float alpha[ROWS];
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
      float blockMax = s[r * KEY_BLOCK];
      [[unroll]] for (uint kk = 1; kk < KEY_BLOCK; ++kk) blockMax = max(blockMax, s[r * KEY_BLOCK + kk]);
      const float mNew = max(m[r], blockMax);  // >= M_START: finite
      alpha[r] = exp2(m[r] - mNew);
      m[r] = mNew;
      float sum = l[r] * alpha[r];
      [[unroll]] for (uint kk = 0; kk < KEY_BLOCK; ++kk) {
        const float pr = exp2(s[r * KEY_BLOCK + kk] - mNew);
        s[r * KEY_BLOCK + kk] = pr;
        sum += pr;
      }
      l[r] = sum;
    }
    // O = alpha O + P V, head-dim word outermost: the accumulators do not fit in registers (ROWS *
    // DV floats per lane), so each is loaded, rescaled, fed the whole key block and stored once.
    uint vRows[KEY_BLOCK];
    [[unroll]] for (uint kk = 0; kk < KEY_BLOCK; ++kk)
      vRows[kk] = kvRow(p.vOffset, p.vStrideB, p.vStrideH, p.vStrideL, vLen, DV, b, kvh, uint(min(j0 + int(kk), hi - 1)));
    [[unroll]] for (uint d = 0; d < DV4; ++d) {
      vec4 vv[KEY_BLOCK];
      [[unroll]] for (uint kk = 0; kk < KEY_BLOCK; ++kk) vv[kk] = LOAD_V4(vRows[kk], d);
      [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        vec4 a = acc[r * DV4 + d] * alpha[r];
        [[unroll]] for (uint kk = 0; kk < KEY_BLOCK; ++kk) a = fma(vec4(s[r * KEY_BLOCK + kk]), vv[kk], a);
        acc[r * DV4 + d] = a;
      }
    }
  }

  if (LANE_KEYS) {  // merge the lanes' (max, sum, acc) of each row; lane 0 writes
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
      const float mAll = subgroupMax(m[r]);
      const float w = exp2(m[r] - mAll);
      l[r] = subgroupAdd(l[r] * w);
      [[unroll]] for (uint d = 0; d < DV4; ++d) acc[r * DV4 + d] = subgroupAdd(acc[r * DV4 + d] * w);
      m[r] = mAll;
    }
    // Lane 0's merged output carries every lane's NaN; the causes must be merged too.
    nanScore = subgroupAny(nanScore);
    nanBias = subgroupAny(nanBias);
  }
  const bool writer = !LANE_KEYS || lane == 0;
  bool nanOut = false;
  if (SPLIT && writer) {
    // Partial record of row i for this split: DV unnormalised sums, the running max (log2 units)
    // and the running sum, at ((z * B * Hq + b * Hq + h) * Lq + i) * (DV + 2) of binding 4.
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
      if (valid[r]) {
        const uint rec = (((gl_WorkGroupID.z * p.batch + b) * p.heads + hs[r]) * p.lq + is[r]) * (DV + 2);
        [[unroll]] for (uint d = 0; d < DV4; ++d) {
          const vec4 val = acc[r * DV4 + d];
          nanOut = nanOut || any(isnan(val));
          lse[rec + 4 * d] = val.x;
          if (4 * d + 1 < DV) lse[rec + 4 * d + 1] = val.y;
          if (4 * d + 2 < DV) lse[rec + 4 * d + 2] = val.z;
          if (4 * d + 3 < DV) lse[rec + 4 * d + 3] = val.w;
        }
        lse[rec + DV] = m[r];
        lse[rec + DV + 1] = l[r];
      }
    }
  }
  [[unroll]] for (uint r = 0; r < ROWS; ++r) {
    if (!SPLIT && writer && valid[r]) {
      const uint h = hs[r], i = is[r];
      float inv, lseLog2;
      finishRow(h, m[r], l[r], inv, lseLog2);
      const uint row = p.oOffset + b * p.oStrideB + h * p.oStrideH + (firstQueryRow(b) + i) * p.oStrideL;
      [[unroll]] for (uint d = 0; d < DV4; ++d) {
        const vec4 val = acc[r * DV4 + d] * inv;
        nanOut = nanOut || any(isnan(val));
        if (QO_ALIGNED) {
          o4[row / 4 + d] = TO_ELEM4(val);
        } else {
          STORE_HEAD4(o, row, d, DV, val);
        }
      }
      if (WRITE_LSE) lse[lseIndex(b, h, i)] = lseLog2 * LN2;
    }
  }
  // A NaN score came from q or k: q's rows are in registers, so blame q if they hold one.
  if (nanScore || nanBias || nanOut) {
    bool nanQ = false;
    [[unroll]] for (uint x = 0; x < ROWS * DK4; ++x) nanQ = nanQ || any(isnan(qr[x]));
    uint bits = nanScore ? (nanQ ? 1u : 2u) : 0u;
    if (nanBias) bits |= 8u;
    if (nanOut && !nanScore && !nanBias) bits |= 4u;
    atomicOr(status[p.statusSlot], bits);
  }
}
