#version 450
// Fused attention on tensor cores (VK_NV_cooperative_matrix, f16 storage, fp32 accumulation and
// softmax): O = softmax(scale * Q K^T + mask) V, FlashAttention-style. A workgroup is ROWS
// subgroups and owns 16 * ROWS consecutive query rows of one (batch, head); each subgroup owns 16
// of them. The workgroup stages its Q rows once and K/V tiles of KEY_BLOCK keys (16 or 32) in
// shared memory, rows padded by 8 halves (16 bytes) against bank conflicts. Per tile each subgroup
// computes S = Q K^T for its rows with 16 x 16 x 16 products into sS (fp32), its lanes turn one row
// each into probabilities with the online softmax (scale, masks and bias applied in fp32; P stored
// as f16 in sP, the rescale factor in sAlpha), rescale the running output sO (fp32, shared) and
// add P V to it with products loaded from and stored back to sO. Subgroups touch only their own
// rows of sS, sP, sAlpha and sO, so they sync with subgroup barriers; only the K/V tiles need
// workgroup barriers. The tile loop is uniform across the workgroup (bounds from the block's
// first and last rows).
// Requires: DK and DV multiples of 16, subgroup size >= 16 and fixed (WG_SIZE = ROWS x it), a
// 16 x 16 x 16 f16 x f16 -> f32 cooperative-matrix shape. Shared memory (bytes): Q 32 R (DK + 8),
// K 2 T (DK + 8), V 2 T (DV + 8), S 64 R (T + 4), P 32 R (T + 8), O 64 R (DV + 4), alpha/l 128 R,
// with R = ROWS and T = KEY_BLOCK; the runtime picks R and T to fit.
// Bindings: as attention_tiled.comp. Spec: attention_common.glsl (0 workgroup, 1 DK, 2 DV, 3-7
// mask/lse flags, 8 ROWS = subgroups per workgroup, 9 KEY_BLOCK). Dispatch: one workgroup per
// (b, h, block of 16 * ROWS rows), flat over x then y. Rows whose keys are all masked give zeros
// and lse = -inf. NaN in q, k, v, bias sets status bits 0, 1, 2, 3.
// Tolerance (tests): as the other kernels for f16: 2e-3 + 5e-3 |ref| (P is rounded to f16 before
// the P V product, as in FlashAttention).
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { AttentionParams p; };
layout(std430, set = 0, binding = ATTN_BINDING_Q) readonly buffer Q { ELEM q[]; };
layout(std430, set = 0, binding = ATTN_BINDING_K) readonly buffer K { ELEM k[]; };
layout(std430, set = 0, binding = ATTN_BINDING_V) readonly buffer V { ELEM v[]; };
layout(std430, set = 0, binding = ATTN_BINDING_O) writeonly buffer O { ELEM o[]; };
layout(std430, set = 0, binding = ATTN_BINDING_LSE) writeonly buffer Lse { float lse[]; };
#define ATTN_BIAS_BINDING ATTN_BINDING_BIAS
#define ATTN_KEEP_BINDING ATTN_BINDING_KEEP
#define ATTN_KEYLEN_BINDING ATTN_BINDING_KEYLEN
#include "attention_common.glsl"
STATUS_BUFFER(ATTN_BINDING_STATUS)

const uint BLOCK = 16 * ROWS;  // query rows per workgroup
const uint LDQ = DK + 8, LDK = DK + 8, LDV = DV + 8;
const uint LDS = KEY_BLOCK + 4, LDP = KEY_BLOCK + 8, LDO = DV + 4;
shared float16_t sQ[BLOCK * LDQ];
shared float16_t sK[KEY_BLOCK * LDK];
shared float16_t sV[KEY_BLOCK * LDV];
shared float sS[BLOCK * LDS];
shared float16_t sP[BLOCK * LDP];
shared float sO[BLOCK * LDO];
shared float sAlpha[BLOCK];
shared float sL[BLOCK];

void subgroupSync() {
  subgroupMemoryBarrierShared();
  subgroupBarrier();
}

void main() {
  const uint blocks = (p.lq + BLOCK - 1) / BLOCK;
  const uint group = flatGroupIndex();
  if (group >= p.batch * p.heads * blocks) return;  // whole workgroup: barriers stay uniform
  const uint lid = gl_LocalInvocationID.x;
  const uint lane = gl_SubgroupInvocationID;
  const uint r0 = gl_SubgroupID * 16;  // this subgroup's first row in the block
  const uint block = group % blocks;
  const uint h = (group / blocks) % p.heads;
  const uint b = group / blocks / p.heads;
  const uint kvh = h / p.kvGroup;
  const uint first = block * BLOCK;
  const uint last = min(first + BLOCK, p.lq) - 1;

  bool nanQ = false, nanK = false, nanV = false, nanBias = false;
  for (uint e = lid; e < BLOCK * DK; e += WG_SIZE) {
    const uint r = e / DK, d = e % DK;
    const uint i = min(first + r, last);
    const ELEM x = q[p.qOffset + b * p.qStrideB + h * p.qStrideH + i * p.qStrideL + d];
    nanQ = nanQ || isnan(float(x));
    sQ[r * LDQ + d] = x;
  }
  for (uint e = lid; e < BLOCK * DV; e += WG_SIZE) sO[(e / DV) * LDO + e % DV] = 0.0;
  barrier();  // sQ and sO are set before any subgroup reads its rows (even with no key tiles)

  // Lane r < 16 of each subgroup keeps row r0 + r's softmax state.
  const uint myRow = r0 + lane;
  const uint i = min(first + myRow, last);
  float m = NEG_INF, l = 0.0;

  int lo, hi;
  keyRange(b, first, last, lo, hi);
  const uint kBase = p.kOffset + b * p.kStrideB + kvh * p.kStrideH;
  const uint vBase = p.vOffset + b * p.vStrideB + kvh * p.vStrideH;
  for (int j0 = lo; j0 < hi; j0 += int(KEY_BLOCK)) {
    barrier();  // everyone is done with the previous tile before it is overwritten
    for (uint e = lid; e < KEY_BLOCK * DK; e += WG_SIZE) {
      const int j = j0 + int(e / DK);
      const ELEM x = j < hi ? k[kBase + uint(j) * p.kStrideL + e % DK] : ELEM(0.0);  // past hi: masked
      nanK = nanK || isnan(float(x));
      sK[(e / DK) * LDK + e % DK] = x;
    }
    for (uint e = lid; e < KEY_BLOCK * DV; e += WG_SIZE) {
      const int j = j0 + int(e / DV);
      const ELEM x = j < hi ? v[vBase + uint(j) * p.vStrideL + e % DV] : ELEM(0.0);
      nanV = nanV || isnan(float(x));
      sV[(e / DV) * LDV + e % DV] = x;
    }
    barrier();  // the tile is staged

    // S = Q K^T for this subgroup's 16 rows: B(d, key) = sK[key][d], column-major.
    [[unroll]] for (uint c = 0; c < KEY_BLOCK; c += 16) {
      fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> s = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
      for (uint d = 0; d < DK; d += 16) {
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> qa, kb;
        coopMatLoadNV(qa, sQ, r0 * LDQ + d, LDQ, false);
        coopMatLoadNV(kb, sK, c * LDK + d, LDK, true);
        s = coopMatMulAddNV(qa, kb, s);
      }
      coopMatStoreNV(s, sS, r0 * LDS + c, LDS, false);
    }
    subgroupSync();

    if (lane < 16) {
      float tileMax = NEG_INF;
      for (uint c = 0; c < KEY_BLOCK; ++c) {
        const int j = j0 + int(c);
        float sc = sS[myRow * LDS + c] * p.scaleLog2;
        if (!keyVisible(b, h, i, j, lo, hi)) {
          sc = NEG_INF;
        } else if (HAS_BIAS) {
          const float bb = biasAt(b, h, i, j);
          nanBias = nanBias || isnan(bb);
          sc += bb * LOG2E;
        }
        sS[myRow * LDS + c] = sc;
        tileMax = max(tileMax, sc);
      }
      const float mNew = max(m, tileMax);
      const float mSafe = mNew == NEG_INF ? 0.0 : mNew;  // nothing visible yet: avoid -inf - -inf
      const float alpha = exp2(m - mSafe);
      m = mNew;
      l *= alpha;
      for (uint c = 0; c < KEY_BLOCK; ++c) {
        const float pr = exp2(sS[myRow * LDS + c] - mSafe);
        l += pr;  // fp32, so the LSE keeps fp32 accuracy; P V uses P rounded to f16
        sP[myRow * LDP + c] = float16_t(pr);
      }
      sAlpha[myRow] = alpha;
    }
    subgroupSync();

    for (uint e = lane; e < 16 * DV; e += gl_SubgroupSize) sO[(r0 + e / DV) * LDO + e % DV] *= sAlpha[r0 + e / DV];
    subgroupSync();

    // O += P V: B(key, d) = sV[key][d], row-major.
    for (uint d = 0; d < DV; d += 16) {
      fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc;
      coopMatLoadNV(acc, sO, r0 * LDO + d, LDO, false);
      [[unroll]] for (uint c = 0; c < KEY_BLOCK; c += 16) {
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> pa, vb;
        coopMatLoadNV(pa, sP, r0 * LDP + c, LDP, false);
        coopMatLoadNV(vb, sV, c * LDV + d, LDV, false);
        acc = coopMatMulAddNV(pa, vb, acc);
      }
      coopMatStoreNV(acc, sO, r0 * LDO + d, LDO, false);
    }
    subgroupSync();
  }

  if (lane < 16) {
    sL[myRow] = l;
    if (WRITE_LSE && first + myRow < p.lq) lse[(b * p.heads + h) * p.lq + i] = l > 0.0 ? (m + log2(l)) * LN2 : NEG_INF;
  }
  subgroupSync();
  bool nanOut = false;
  for (uint e = lane; e < 16 * DV; e += gl_SubgroupSize) {
    const uint r = r0 + e / DV, d = e % DV;
    if (first + r < p.lq) {
      const float sum = sL[r];
      const float val = sum > 0.0 ? sO[r * LDO + d] / sum : 0.0;
      nanOut = nanOut || isnan(val);
      o[p.oOffset + b * p.oStrideB + h * p.oStrideH + (first + r) * p.oStrideL + d] = TO_ELEM(val);
    }
  }
  uint bits = (nanQ ? 1u : 0u) | (nanK ? 2u : 0u) | (nanV ? 4u : 0u) | (nanBias ? 8u : 0u);
  if (nanOut && bits == 0u) bits = 4u;  // overflow to inf - inf: blamed on v as the other kernels do
  bits = subgroupOr(bits);
  if (bits != 0u && subgroupElect()) atomicOr(status[p.statusSlot], bits);
}
