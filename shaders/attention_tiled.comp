#version 450
// Storage: f32, f16
// Fused attention for GPUs without cooperative matrices (FlashAttention-style): O = softmax(scale
// * Q K^T + mask) V with the online softmax in fp32. A workgroup owns WG_SIZE / ROW_LANES
// consecutive query rows of one (batch, head); each row belongs to ROW_LANES consecutive lanes of a
// subgroup, lane `part` holding vec4 words part, part + ROW_LANES, ... of the row's q and output
// in registers, so a lane carries (DK + DV) / ROW_LANES floats (the runtime aims at <= 64: 4 lanes
// per row at D = 128, 8 at D = 256) instead of a whole row. A score is the lanes' partial dots
// summed with ROW_LANES - 1 shuffles (log2 steps of subgroupShuffleXor), which leaves it in every
// lane of the row, so the softmax runs redundantly per lane without further exchange. The
// workgroup walks the keys the block can see in tiles of KEY_BLOCK keys that it stages in shared
// memory (each K/V element is read from global memory once per workgroup instead of once per
// row). Shared memory needs no bank padding: the lanes of a row read consecutive 16-byte words of
// one key and the rows of a subgroup read the same words (a broadcast), so a subgroup's reads of a
// step cover ROW_LANES distinct consecutive words. The tile loop is uniform across the workgroup
// (bounds come from the block's first and last rows), as its barriers and shuffles need; head-dim
// loops are unrolled at pipeline creation, the tile is consumed 4 keys per step, so an invocation
// loops ceil(keys / KEY_BLOCK) * (1 + KEY_BLOCK / 4) times. Lanes of a row must be lanes of one
// subgroup: local invocation ids map onto subgroup lanes in order (as on every known driver for
// 1-D workgroups) and the subgroup size is a multiple of ROW_LANES (the runtime checks it).
// Bindings: 0 q, 1 k, 2 v (ELEM, read), 3 out (ELEM, write), 4 lse (f32 [B, Hq, Lq], write), 5 bias
// (f32), 6 keep mask (i32), 7 key lengths (i32 [B]), 8 status, 9 sinks (f32 [Hq]), 10 ALiBi
// slopes (f32 [Hq] or [B, Hq]). Head dims 1..576 (a partial last vec4 word reads as zeros).
// Push: AttentionParams. Spec: attention_common.glsl (0 workgroup = rows per workgroup x ROW_LANES,
// 1 DK, 2 DV, 3-7 mask/lse flags, 9 KEY_BLOCK = keys per tile, a multiple of 4, 21 ROW_LANES;
// shared memory KEY_BLOCK * (DK4 + DV4) * 16 bytes). Dispatch: one workgroup per (b, h, block of
// WG_SIZE / ROW_LANES rows), flat over x then y.
// Rows whose keys are all masked give zeros and lse = -inf. NaN in q, k, v, bias sets status bits
// 0, 1, 2, 3 (one atomic per subgroup).
// Tolerance (tests): as attention_rows.comp: 2e-5 + 1e-4 |ref| (f32), 2e-3 + 5e-3 |ref| (f16).
//
// Performance model (H100: 132 SMs, fp32 FMA 128 per clock per SM, shared memory 128 B per clock
// per SM, 48 KiB per workgroup; d = DK = DV = 128, f16 storage, ROW_LANES 4, 64 rows and 256
// invocations per workgroup, KEY_BLOCK 16):
// - per tile and workgroup: 2 * 64 * 16 * (128 + 128) = 0.52 MFLOP of fp32 FMA (no tensor cores);
// - shared memory: 16 KiB of K/V (converted to fp32) per tile; per key each lane reads DKL + DVL =
//   16 words of 16 bytes; a warp holds 8 rows x 4 parts, so each 16-byte read serves 32 lanes
//   from 4 distinct words but still takes 4 clocks (quarter-warp phases): 64 clocks per warp and
//   key for 8 * 512 FLOP, i.e. 64 FLOP per clock per SM, a quarter of the fp32 FMA rate;
// - global: 8 KiB of K/V per tile per workgroup, read by the Lq / 64 workgroups of a head through
//   L2: 64 FLOP/byte even from HBM, not the bound;
// - registers per thread: q 32 and O 32 floats, 4 scores, softmax state and addresses: ~90;
// - occupancy: 256 x 90 registers -> 2 workgroups (16 warps, 25%) per SM, shared memory allows 3.
// Expected bound: shared-memory reads, ~64 FLOP/clock/SM = ~15 TFLOP/s at 1.8 GHz (about 4% of
// FlashAttention-2's tensor-core rate): the fallback for devices without cooperative matrices.
// Written, not verified on hardware; lavapipe runs it in CI.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { AttentionParams p; };
layout(std430, set = 0, binding = ATTN_BINDING_Q) readonly buffer Q { ELEM q[]; };
layout(std430, set = 0, binding = ATTN_BINDING_K) readonly buffer K { ELEM k[]; };
layout(std430, set = 0, binding = ATTN_BINDING_V) readonly buffer V { ELEM v[]; };
layout(std430, set = 0, binding = ATTN_BINDING_K) readonly buffer K4 { ELEM4 k4[]; };  // same data, when ALIGNED
layout(std430, set = 0, binding = ATTN_BINDING_V) readonly buffer V4 { ELEM4 v4[]; };
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

shared vec4 sK[KEY_BLOCK * DK4];
shared vec4 sV[KEY_BLOCK * DV4];

const uint ROWS_PER_GROUP = WG_SIZE / ROW_LANES;
const uint DKL = DK4 / ROW_LANES, DVL = DV4 / ROW_LANES;  // vec4 words per lane

// Sums x over the ROW_LANES lanes of this lane's row (in every one of them). Written without a
// loop: llvmpipe counts even a loop that runs no iteration against its per-invocation limit.
float rowSum(float x) {
  if (ROW_LANES > 1) x += subgroupShuffleXor(x, 1);
  if (ROW_LANES > 2) x += subgroupShuffleXor(x, 2);
  if (ROW_LANES > 4) x += subgroupShuffleXor(x, 4);
  return x;
}

void main() {
  const uint blocks = (p.lq + ROWS_PER_GROUP - 1) / ROWS_PER_GROUP;
  const uint group = flatGroupIndex();
  if (group >= p.batch * p.heads * blocks) return;  // whole workgroup: barriers stay uniform
  const uint lid = gl_LocalInvocationID.x;
  const uint part = lid % ROW_LANES;  // this lane's words: part + t * ROW_LANES
  const uint block = group % blocks;
  const uint h = (group / blocks) % p.heads;
  const uint b = group / blocks / p.heads;
  const uint kvh = h / p.kvGroup;
  const uint first = block * ROWS_PER_GROUP;
  const uint last = min(first + ROWS_PER_GROUP, p.lq) - 1;
  const uint i = min(first + lid / ROW_LANES, last);

  vec4 qr[DKL];
  vec4 acc[DVL];
  const uint qRow = p.qOffset + b * p.qStrideB + h * p.qStrideH + i * p.qStrideL;
  [[unroll]] for (uint t = 0; t < DKL; ++t) qr[t] = LOAD_HEAD4(q, qRow, part + t * ROW_LANES, DK) * p.scaleLog2;
  [[unroll]] for (uint t = 0; t < DVL; ++t) acc[t] = vec4(0.0);
  float m = M_START, l = 0.0;

  int lo, hi;
  keyRange(b, first, last, lo, hi);
  const uint kBase = p.kOffset + b * p.kStrideB + kvh * p.kStrideH;
  const uint vBase = p.vOffset + b * p.vStrideB + kvh * p.vStrideH;
  bool nanScore = false, nanBias = false;
  for (int j0 = lo; j0 < hi; j0 += int(KEY_BLOCK)) {
    barrier();  // every row is done reading the previous tile before it is overwritten
    [[unroll]] for (uint c = 0; c < (KEY_BLOCK * DK4 + WG_SIZE - 1) / WG_SIZE; ++c) {
      const uint t = c * WG_SIZE + lid;
      if (t < KEY_BLOCK * DK4) {
        const uint key = uint(min(j0 + int(t / DK4), hi - 1));  // clamped: in bounds, masked below
        const uint row = kBase + key * p.kStrideL;
        sK[t] = ALIGNED ? vec4(k4[row / 4 + t % DK4]) : LOAD_HEAD4(k, row, t % DK4, DK);
      }
    }
    [[unroll]] for (uint c = 0; c < (KEY_BLOCK * DV4 + WG_SIZE - 1) / WG_SIZE; ++c) {
      const uint t = c * WG_SIZE + lid;
      if (t < KEY_BLOCK * DV4) {
        const uint key = uint(min(j0 + int(t / DV4), hi - 1));
        const uint row = vBase + key * p.vStrideL;
        sV[t] = ALIGNED ? vec4(v4[row / 4 + t % DV4]) : LOAD_HEAD4(v, row, t % DV4, DV);
      }
    }
    barrier();  // the tile's shared-memory writes are visible before any row reads them

    // Four keys at a time: one max and one rescale per step, code small enough that llvmpipe
    // (which compiles barrier kernels as coroutines) builds the pipeline in reasonable time.
    [[dont_unroll]] for (uint k0 = 0; k0 < KEY_BLOCK; k0 += 4) {
      float s[4];
      float stepMax = MASKED;
      [[unroll]] for (uint kk = 0; kk < 4; ++kk) {
        const int j = j0 + int(k0 + kk);
        vec4 dot4 = vec4(0.0);
        [[unroll]] for (uint t = 0; t < DKL; ++t)
          dot4 = fma(qr[t], sK[(k0 + kk) * DK4 + part + t * ROW_LANES], dot4);
        float sc = rowSum(dot4.x + dot4.y + dot4.z + dot4.w);
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
        s[kk] = sc;
        stepMax = max(stepMax, sc);
      }
      const float mNew = max(m, stepMax);  // >= M_START: finite
      const float alpha = exp2(m - mNew);
      m = mNew;
      l *= alpha;
      [[unroll]] for (uint t = 0; t < DVL; ++t) acc[t] *= alpha;
      [[unroll]] for (uint kk = 0; kk < 4; ++kk) {
        const float pr = exp2(s[kk] - mNew);
        l += pr;
        [[unroll]] for (uint t = 0; t < DVL; ++t)
          acc[t] = fma(vec4(pr), sV[(k0 + kk) * DV4 + part + t * ROW_LANES], acc[t]);
      }
    }
  }

  bool nanOut = false;
  if (first + lid / ROW_LANES < p.lq) {
    float inv, lseLog2;
    finishRow(h, m, l, inv, lseLog2);
    const uint row = p.oOffset + b * p.oStrideB + h * p.oStrideH + i * p.oStrideL;
    [[unroll]] for (uint t = 0; t < DVL; ++t) {
      const vec4 val = acc[t] * inv;
      nanOut = nanOut || any(isnan(val));
      STORE_HEAD4(o, row, part + t * ROW_LANES, DV, val);
    }
    if (WRITE_LSE && part == 0) lse[(b * p.heads + h) * p.lq + i] = lseLog2 * LN2;
  }
  // A NaN score reaches every lane of its row while only the lane holding the NaN word of q knows
  // it is q's: the subgroup-wide OR below merges them (bit 0, q, is the one reported first).
  bool nanQ = false;
  [[unroll]] for (uint t = 0; t < DKL; ++t) nanQ = nanQ || any(isnan(qr[t]));
  uint bits = nanScore ? (nanQ ? 1u : 2u) : 0u;
  if (nanBias) bits |= 8u;
  if (nanOut && !nanScore && !nanBias) bits |= 4u;
  bits = subgroupOr(bits);
  if (bits != 0u && subgroupElect()) atomicOr(status[p.statusSlot], bits);
}
