// Shared by the attention kernels: their specialization constants (one id map for all, so the
// runtime builds one SpecConstants), the mask inputs and the rules that decide which keys a query
// row sees. The includer defines ATTN_BIAS_BINDING, ATTN_KEEP_BINDING and ATTN_KEYLEN_BINDING and
// declares `p` (AttentionParams) first.
#ifndef VKATTN_ATTENTION_COMMON_GLSL
#define VKATTN_ATTENTION_COMMON_GLSL

#include "kernel_interface.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_WORKGROUP_SIZE) const uint WG_SIZE = 64;
layout(constant_id = ATTN_SPEC_DK) const uint DK = 64;           // query/key head dim, multiple of 8
layout(constant_id = ATTN_SPEC_DV) const uint DV = 64;           // value head dim, multiple of 8
layout(constant_id = ATTN_SPEC_HAS_BAND) const bool HAS_BAND = false;  // causal and/or sliding window
layout(constant_id = ATTN_SPEC_HAS_BIAS) const bool HAS_BIAS = false;  // additive f32 bias
layout(constant_id = ATTN_SPEC_HAS_KEEP) const bool HAS_KEEP = false;  // i32 keep-mask, nonzero keeps
layout(constant_id = ATTN_SPEC_HAS_KEYLEN) const bool HAS_KEYLEN = false;  // i32 key length per batch
layout(constant_id = ATTN_SPEC_WRITE_LSE) const bool WRITE_LSE = false;
layout(constant_id = ATTN_SPEC_ROWS) const uint ROWS = 4;          // query rows per invocation (rows kernel)
layout(constant_id = ATTN_SPEC_KEY_BLOCK) const uint KEY_BLOCK = 4;     // keys per step (rows) / per tile (tiled)

// K and V rows start at multiples of 4 elements (strides and offsets), so they can be read as vec4.
layout(constant_id = ATTN_SPEC_ALIGNED) const bool ALIGNED = false;

// Split-K: the rows kernel covers 1 / gl_NumWorkGroups.z of the keys per workgroup z and writes
// partial (acc, max, sum) records that attention_combine.comp merges.
layout(constant_id = ATTN_SPEC_SPLIT) const bool SPLIT = false;
layout(constant_id = ATTN_SPEC_SPLITS) const uint SPLITS = 1;  // combine kernel: partial records per row
// Decode mode of the rows kernel: the workgroup (one subgroup) shares its ROWS query rows and its
// lanes take turns over the keys; subgroup ops merge the lanes' softmax states at the end.
layout(constant_id = ATTN_SPEC_LANE_KEYS) const bool LANE_KEYS = false;
// Fragment kernel: K/V buffers in shared memory (2: double-buffered), and the subgroup size its
// lane-to-row mapping is built for (the subgroup size must be fixed).
layout(constant_id = ATTN_SPEC_STAGES) const uint STAGES = 2;
layout(constant_id = ATTN_SPEC_SUBGROUP_SIZE) const uint SUBGROUP_SIZE = 32;

#ifdef STORAGE_F16
#define ELEM4 f16vec4
#else
#define ELEM4 vec4
#endif

const uint DK4 = DK / 4;
const uint DV4 = DV / 4;
const float NEG_INF = -1.0 / 0.0;
const float LOG2E = 1.4426950408889634;
const float LN2 = 0.6931471805599453;

layout(std430, set = 0, binding = ATTN_BIAS_BINDING) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = ATTN_KEEP_BINDING) readonly buffer Keep { int keepMask[]; };
layout(std430, set = 0, binding = ATTN_KEYLEN_BINDING) readonly buffer KeyLens { int keyLens[]; };

// Keys [lo, hi) that rows first..last of batch b can see at all (before keep-mask and bias).
// Empty when hi <= lo.
void keyRange(uint b, uint first, uint last, out int lo, out int hi) {
  lo = 0;
  hi = int(p.lk);
  if (HAS_KEYLEN) hi = min(hi, keyLens[b]);
  if (HAS_BAND) {
    lo = max(lo, int(first) + p.diagShift - p.windowLeft);
    hi = min(hi, int(last) + p.diagShift + p.windowRight + 1);
  }
}

// Whether row i sees key j, given j inside the range keyRange gave for a block holding row i.
bool keyVisible(uint b, uint h, uint i, int j, int lo, int hi) {
  if (j < lo || j >= hi) return false;
  if (HAS_BAND) {
    int rel = j - (int(i) + p.diagShift);
    if (rel < -p.windowLeft || rel > p.windowRight) return false;
  }
  if (HAS_KEEP) {
    if (keepMask[b * p.keepStrideB + h * p.keepStrideH + i * p.keepStrideL + uint(j)] == 0) return false;
  }
  return true;
}

float biasAt(uint b, uint h, uint i, int j) {
  return bias[b * p.biasStrideB + h * p.biasStrideH + i * p.biasStrideL + uint(j)];
}

#endif
