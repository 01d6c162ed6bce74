#version 450
// Split-K epilogue of attention_rows.comp, attention_decode.comp and the fragment kernels: merges the partial records (unnormalised sums
// acc, running max m in log2 units, running sum l) of each query row into
//   out = sum_s acc_s 2^(m_s - M) / L,  L = sum_s l_s 2^(m_s - M),  M = max_s m_s,
// and lse = (M + log2 L) ln 2; with sinks, head h's sink logit then joins L (finishRow). Rows with
// no visible key in any split give zeros and lse = -inf (or the sink's logit).
// Bindings: 0 partials (f32, [splits, B, Hq, Lq, DV + 2]), 1 out (ELEM, write), 2 lse (f32
// [B, Hq, Lq], write when WRITE_LSE), 3 sinks (f32 [Hq]), 4 sequences (VARLEN: as attention_rows.comp).
// Push: AttentionParams (batch, heads, lq, o*), whose lk carries the number of splits: the combine
// reads no key, and a push constant lets every split count share one pipeline (a decode step's
// count grows with the cache).
// Spec: attention_common.glsl ids (0 workgroup, 2 DV, 7 WRITE_LSE, 18 HAS_SINKS, 24 VARLEN).
// Dispatch: one invocation per (b, h, i, vec4 word of the output row), flat over x then y: the rows'
// words are merged in parallel, each invocation walking the splits for its word (and the splits'
// maxima and sums, which the invocations of a row share). NaN is reported by the split pass.
// Tolerance (tests): as attention_rows.comp.
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

void main() {
  const uint index = flatGroupIndex() * WG_SIZE + gl_LocalInvocationID.x;
  const uint rows = p.batch * p.heads * p.lq;
  if (index >= rows * DV4) return;
  const uint row = index / DV4, d = index % DV4;
  const uint i = row % p.lq;
  const uint h = (row / p.lq) % p.heads;
  const uint b = row / p.lq / p.heads;
  loadSequence(b);
  if (VARLEN && int(i) >= queryCount(b)) return;  // past its sequence's rows: no record was written
  const uint splits = p.lk;
  float mMax = M_START;  // records of splits that saw no key hold M_START and l = 0
  [[dont_unroll]] for (uint s = 0; s < splits; ++s) mMax = max(mMax, partial[(s * rows + row) * (DV + 2) + DV]);
  vec4 acc = vec4(0.0);
  float l = 0.0;
  [[dont_unroll]] for (uint s = 0; s < splits; ++s) {
    const uint rec = (s * rows + row) * (DV + 2);
    const float w = exp2(partial[rec + DV] - mMax);  // 0 for a split that saw no key
    l += w * partial[rec + DV + 1];
    acc += w * LOAD_HEAD4(partial, rec, d, DV);
  }
  float inv, lseLog2;
  finishRow(h, mMax, l, inv, lseLog2);  // the sink joins once, after the splits are merged
  const uint out_ = p.oOffset + b * p.oStrideB + h * p.oStrideH + (firstQueryRow(b) + i) * p.oStrideL;
  STORE_HEAD4(o, out_, d, DV, acc * inv);
  if (WRITE_LSE && d == 0) lse[lseIndex(b, h, i)] = lseLog2 * LN2;
}
