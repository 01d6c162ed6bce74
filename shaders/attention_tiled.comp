#version 450
// Fused attention for GPUs (FlashAttention-style): O = softmax(scale * Q K^T + mask) V with the
// online softmax in fp32. A workgroup owns WG_SIZE consecutive query rows of one (batch, head),
// one row per invocation held in registers; it walks the keys the block can see in tiles of
// KEY_BLOCK keys that the workgroup stages in shared memory (each K/V element is read from
// global memory once per workgroup instead of once per row). Scores of a tile, their max and the
// accumulator rescale are per tile. The tile loop is uniform across the workgroup (bounds come
// from the block's first and last rows), as its barriers need; head-dim loops are unrolled at
// pipeline creation, the tile is consumed 4 keys per step, so an invocation loops
// ceil(keys / KEY_BLOCK) * (1 + KEY_BLOCK / 4) times.
// Bindings: 0 q, 1 k, 2 v (ELEM, read), 3 out (ELEM, write), 4 lse (f32 [B, Hq, Lq], write), 5 bias
// (f32), 6 keep mask (i32), 7 key lengths (i32 [B]), 8 status, 9 sinks (f32 [Hq]), 10 ALiBi
// slopes (f32 [Hq] or [B, Hq]). Head dims 1..576 (a partial last vec4 word reads as zeros).
// Push: AttentionParams. Spec: attention_common.glsl (0 workgroup = rows per workgroup, 1 DK,
// 2 DV, 3-7 mask/lse flags, 9 KEY_BLOCK = keys per tile, a multiple of 4; shared memory KEY_BLOCK * (DK + DV) * 4
// bytes). Dispatch: one workgroup per (b, h, block of WG_SIZE rows), flat over x then y.
// Rows whose keys are all masked give zeros and lse = -inf. NaN in q, k, v, bias sets status bits
// 0, 1, 2, 3 (one atomic per subgroup).
// Tolerance (tests): as attention_rows.comp: 2e-5 + 1e-4 |ref| (f32), 2e-3 + 5e-3 |ref| (f16).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
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
#include "attention_common.glsl"
STATUS_BUFFER(ATTN_BINDING_STATUS)

shared vec4 sK[KEY_BLOCK * DK4];
shared vec4 sV[KEY_BLOCK * DV4];

void main() {
  const uint blocks = (p.lq + WG_SIZE - 1) / WG_SIZE;
  const uint group = flatGroupIndex();
  if (group >= p.batch * p.heads * blocks) return;  // whole workgroup: barriers stay uniform
  const uint lid = gl_LocalInvocationID.x;
  const uint block = group % blocks;
  const uint h = (group / blocks) % p.heads;
  const uint b = group / blocks / p.heads;
  const uint kvh = h / p.kvGroup;
  const uint first = block * WG_SIZE;
  const uint last = min(first + WG_SIZE, p.lq) - 1;
  const uint i = min(first + lid, last);

  vec4 qr[DK4];
  vec4 acc[DV4];
  const uint qRow = p.qOffset + b * p.qStrideB + h * p.qStrideH + i * p.qStrideL;
  [[unroll]] for (uint d = 0; d < DK4; ++d) qr[d] = LOAD_HEAD4(q, qRow, d, DK) * p.scaleLog2;
  [[unroll]] for (uint d = 0; d < DV4; ++d) acc[d] = vec4(0.0);
  float m = NEG_INF, l = 0.0;

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
      float stepMax = NEG_INF;
      [[unroll]] for (uint kk = 0; kk < 4; ++kk) {
        const int j = j0 + int(k0 + kk);
        vec4 dot4 = vec4(0.0);
        [[unroll]] for (uint d = 0; d < DK4; ++d) dot4 = fma(qr[d], sK[(k0 + kk) * DK4 + d], dot4);
        float sc = dot4.x + dot4.y + dot4.z + dot4.w;
        nanScore = nanScore || isnan(sc);
        if (!keyVisible(b, h, i, j, lo, hi)) {
          sc = NEG_INF;
        } else {
          sc = shapeLogit(sc, b, h, i, j);
          if (HAS_BIAS) {
            const float bb = biasAt(b, h, i, j);
            nanBias = nanBias || isnan(bb);
            sc += bb * LOG2E;
          }
        }
        s[kk] = sc;
        stepMax = max(stepMax, sc);
      }
      const float mNew = max(m, stepMax);
      const float mSafe = mNew == NEG_INF ? 0.0 : mNew;  // nothing visible yet: avoid -inf - -inf
      const float alpha = exp2(m - mSafe);
      m = mNew;
      l *= alpha;
      [[unroll]] for (uint d = 0; d < DV4; ++d) acc[d] *= alpha;
      [[unroll]] for (uint kk = 0; kk < 4; ++kk) {
        const float pr = exp2(s[kk] - mSafe);
        l += pr;
        [[unroll]] for (uint d = 0; d < DV4; ++d) acc[d] = fma(vec4(pr), sV[(k0 + kk) * DV4 + d], acc[d]);
      }
    }
  }

  bool nanOut = false;
  if (first + lid < p.lq) {
    float inv, lseLog2;
    finishRow(h, m, l, inv, lseLog2);
    const uint row = p.oOffset + b * p.oStrideB + h * p.oStrideH + i * p.oStrideL;
    [[unroll]] for (uint d = 0; d < DV4; ++d) {
      const vec4 val = acc[d] * inv;
      nanOut = nanOut || any(isnan(val));
      STORE_HEAD4(o, row, d, DV, val);
    }
    if (WRITE_LSE) lse[(b * p.heads + h) * p.lq + i] = lseLog2 * LN2;
  }
  bool nanQ = false;
  [[unroll]] for (uint d = 0; d < DK4; ++d) nanQ = nanQ || any(isnan(qr[d]));
  uint bits = nanScore ? (nanQ ? 1u : 2u) : 0u;
  if (nanBias) bits |= 8u;
  if (nanOut && !nanScore && !nanBias) bits |= 4u;
  bits = subgroupOr(bits);
  if (bits != 0u && subgroupElect()) atomicOr(status[p.statusSlot], bits);
}
