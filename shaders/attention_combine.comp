#version 450
// Storage: f32, f16
// Split-K epilogue of attention_rows.comp, attention_decode.comp and the fragment kernels: merges the partial records (unnormalised sums
// acc, running max m in log2 units, running sum l) of each query row into
//   out = sum_s acc_s 2^(m_s - M) / L,  L = sum_s l_s 2^(m_s - M),  M = max_s m_s,
// and lse = (M + log2 L) ln 2; with sinks, head h's sink logit then joins L (finishRow). Rows with
// no visible key in any split give zeros and lse = -inf (or the sink's logit).
// One subgroup per row: its lanes read the splits' maxima and sums in parallel (lane x takes splits
// x, x + subgroup size, ...) and reduce them with subgroupMax / subgroupAdd; then each lane owns
// vec4 words of the output row and walks the splits for them, loading UNROLL splits' words (and
// maxima) before summing them, so that a row's loads are in flight together instead of one split
// after another.
// Bindings: 0 partials (f32, [splits, B, Hq, Lq, DV + 2]), 1 out (ELEM, write), 2 lse (f32
// [B, Hq, Lq], write when WRITE_LSE), 3 sinks (f32 [Hq]), 4 sequences (VARLEN: as attention_rows.comp).
// Push: AttentionParams (batch, heads, lq, o*), whose lk carries the number of splits: the combine
// reads no key, and a push constant lets every split count share one pipeline (a decode step's
// count grows with the cache).
// Spec: attention_common.glsl ids (0 workgroup, 2 DV, 7 WRITE_LSE, 8 ROWS: rows per workgroup, at
// most its subgroups at the device's largest subgroup size, 18 HAS_SINKS, 24 VARLEN). Subgroup r
// takes row r of the workgroup's ROWS; subgroups past them idle.
// Dispatch: one workgroup per ROWS rows (b, h, i), flat over x then y. NaN is reported by the split
// pass.
// Tolerance (tests): as attention_rows.comp.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { AttentionParams p; };
layout(std430, set = 0, binding = ATTN_COMBINE_BINDING_PARTIALS) readonly buffer Partials { float partial[]; };
layout(std430, set = 0, binding = ATTN_COMBINE_BINDING_O) writeonly buffer O { ELEM o[]; };
layout(std430, set = 0, binding = ATTN_COMBINE_BINDING_LSE) writeonly buffer Lse { float lse[]; };
#define ATTN_BIAS_BINDING ATTN_COMBINE_BINDING_PARTIALS  // unused here (no mask flags): any declared binding
#define ATTN_KEEP_BINDING ATTN_COMBINE_BINDING_PARTIALS  // unused here (no mask flags): any declared binding
#define ATTN_KEYLEN_BINDING ATTN_COMBINE_BINDING_PARTIALS  // unused here (no mask flags): any declared binding
#define ATTN_SINKS_BINDING ATTN_COMBINE_BINDING_SINKS
#define ATTN_ALIBI_BINDING ATTN_COMBINE_BINDING_PARTIALS  // unused here: any declared binding
#define ATTN_SEQS_BINDING ATTN_COMBINE_BINDING_SEQS
#include "attention_common.glsl"

const uint UNROLL = 4;  // splits whose words a lane loads before summing them

// Row `row`'s merged output and lse, by the calling subgroup (all of its lanes: subgroup reductions).
void combineRow(uint row, uint rows, uint splits, uint b, uint h, uint i) {
  const uint lane = gl_SubgroupInvocationID, width = gl_SubgroupSize;
  // Records of splits that saw no key hold M_START and l = 0.
  float mLane = M_START;
  for (uint s = lane; s < splits; s += width) mLane = max(mLane, partial[(s * rows + row) * (DV + 2) + DV]);
  const float mMax = subgroupMax(mLane);
  float lLane = 0.0;
  for (uint s = lane; s < splits; s += width) {
    const uint rec = (s * rows + row) * (DV + 2);
    lLane += exp2(partial[rec + DV] - mMax) * partial[rec + DV + 1];  // weight 0 for a split that saw no key
  }
  float inv, lseLog2;
  finishRow(h, mMax, subgroupAdd(lLane), inv, lseLog2);  // the sink joins once, after the splits are merged
  if (WRITE_LSE && lane == 0) lse[lseIndex(b, h, i)] = lseLog2 * LN2;
  const uint out_ = p.oOffset + b * p.oStrideB + h * p.oStrideH + (firstQueryRow(b) + i) * p.oStrideL;
  for (uint d = lane; d < DV4; d += width) {  // no subgroup operation from here on
    vec4 acc = vec4(0.0);
    uint s = 0;
    for (; s + UNROLL <= splits; s += UNROLL) {
      float m[UNROLL];
      vec4 words[UNROLL];
      [[unroll]] for (uint x = 0; x < UNROLL; ++x) {
        const uint rec = ((s + x) * rows + row) * (DV + 2);
        m[x] = partial[rec + DV];
        words[x] = LOAD_HEAD4(partial, rec, d, DV);
      }
      [[unroll]] for (uint x = 0; x < UNROLL; ++x) acc += exp2(m[x] - mMax) * words[x];
    }
    for (; s < splits; ++s) {
      const uint rec = (s * rows + row) * (DV + 2);
      acc += exp2(partial[rec + DV] - mMax) * LOAD_HEAD4(partial, rec, d, DV);
    }
    STORE_HEAD4(o, out_, d, DV, acc * inv);
  }
}

void main() {
  const uint row = flatGroupIndex() * ROWS + gl_SubgroupID;  // uniform per subgroup
  const uint rows = p.batch * p.heads * p.lq;
  if (gl_SubgroupID >= ROWS || row >= rows) return;
  const uint i = row % p.lq;
  const uint h = (row / p.lq) % p.heads;
  const uint b = row / p.lq / p.heads;
  loadSequence(b);
  if (VARLEN && int(i) >= queryCount(b)) return;  // past its sequence's rows: no record was written
  combineRow(row, rows, p.lk, b, h, i);
}
