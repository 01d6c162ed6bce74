// Shared by the attention kernels: their specialization constants (one id map for all, so the
// runtime builds one SpecConstants), the mask inputs and the rules that decide which keys a query
// row sees, and the logit shaping (softcap, ALiBi) and sinks they share. The includer defines
// ATTN_BIAS_BINDING, ATTN_KEEP_BINDING, ATTN_KEYLEN_BINDING, ATTN_SINKS_BINDING and
// ATTN_ALIBI_BINDING and ATTN_SEQS_BINDING (any declared binding where a kernel never reads one) and
// declares `p` (AttentionParams) first.
#ifndef VKATTN_ATTENTION_COMMON_GLSL
#define VKATTN_ATTENTION_COMMON_GLSL

#include "kernel_interface.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_WORKGROUP_SIZE) const uint WG_SIZE = 64;
layout(constant_id = ATTN_SPEC_DK) const uint DK = 64;           // query/key head dim, 1..576
layout(constant_id = ATTN_SPEC_DV) const uint DV = 64;           // value head dim, 1..576
layout(constant_id = ATTN_SPEC_HAS_BAND) const bool HAS_BAND = false;  // causal and/or sliding window
layout(constant_id = ATTN_SPEC_HAS_BIAS) const bool HAS_BIAS = false;  // additive f32 bias
layout(constant_id = ATTN_SPEC_HAS_KEEP) const bool HAS_KEEP = false;  // i32 keep-mask, nonzero keeps
layout(constant_id = ATTN_SPEC_HAS_KEYLEN) const bool HAS_KEYLEN = false;  // i32 key length per batch
layout(constant_id = ATTN_SPEC_WRITE_LSE) const bool WRITE_LSE = false;
layout(constant_id = ATTN_SPEC_ROWS) const uint ROWS = 4;          // query rows per invocation (rows kernel)
layout(constant_id = ATTN_SPEC_KEY_BLOCK) const uint KEY_BLOCK = 4;     // keys per step (rows) / per tile (tiled)

// K and V rows start at multiples of 4 elements (strides and offsets), so they can be read as vec4.
layout(constant_id = ATTN_SPEC_ALIGNED) const bool ALIGNED = false;
// The same for Q and O (the rows kernel reads q and writes o as vec4 then).
layout(constant_id = ATTN_SPEC_QO_ALIGNED) const bool QO_ALIGNED = false;

// Split-K: the rows and fragment kernels cover 1 / gl_NumWorkGroups.z of the keys per workgroup z and write
// partial (acc, max, sum) records that attention_combine.comp merges.
layout(constant_id = ATTN_SPEC_SPLIT) const bool SPLIT = false;
// Decode mode of the rows kernel: the workgroup (one subgroup) shares its ROWS query rows and its
// lanes take turns over the keys; subgroup ops merge the lanes' softmax states at the end.
layout(constant_id = ATTN_SPEC_LANE_KEYS) const bool LANE_KEYS = false;
// Fragment kernel: K/V buffers in shared memory (2: double-buffered), and the subgroup size its
// lane-to-row mapping (fragment kernels) or key groups (decode kernel) are built for (the subgroup
// size must be fixed).
layout(constant_id = ATTN_SPEC_STAGES) const uint STAGES = 2;
layout(constant_id = ATTN_SPEC_SUBGROUP_SIZE) const uint SUBGROUP_SIZE = 32;
// Logit softcap c: s -> c * tanh(s / c) on the scaled logits, before ALiBi and bias; 0 is off.
layout(constant_id = ATTN_SPEC_SOFTCAP) const float SOFTCAP = 0.0;
layout(constant_id = ATTN_SPEC_HAS_SINKS) const bool HAS_SINKS = false;
layout(constant_id = ATTN_SPEC_HAS_ALIBI) const bool HAS_ALIBI = false;
layout(constant_id = ATTN_SPEC_ALIBI_STRIDE_B) const uint ALIBI_STRIDE_B = 0;
// Tiled kernel: consecutive lanes of a subgroup that share one query row, each holding every
// ROW_LANES-th vec4 word of its q and output (a power of two dividing both DK4 and DV4). Decode
// kernel: the lanes of a key group, each holding every ROW_LANES-th 16-byte word of the key's row.
layout(constant_id = ATTN_SPEC_ROW_LANES) const uint ROW_LANES = 1;
// Rows and decode kernels: K and V are a paged cache [blocks, Hkv, PAGE_SIZE, D]; key j of batch b is row
// j % PAGE_SIZE of block pages[b][j / PAGE_SIZE]. 0: K and V are [B, Hkv, Lk, D].
layout(constant_id = ATTN_SPEC_PAGE_SIZE) const uint PAGE_SIZE = 0;
// Causal masks and windows hang from i + keyLens[b] - Lq (each batch's own last key) instead of
// i + p.diagShift (needs HAS_KEYLEN).
layout(constant_id = ATTN_SPEC_ALIGN_KEYLEN) const bool ALIGN_KEYLEN = false;
// A packed batch of p.batch sequences (flash-attn's varlen): q, out and lse rows of sequence b are
// rows seqs[b] .. seqs[b + 1] - 1 of one packed tensor, its keys rows seqs[B + 1 + b] .. of K and
// V (the b strides are 0); p.lq and p.lk are the longest sequence's counts, rows past a
// sequence's own are skipped. The offsets were checked on the host.
layout(constant_id = ATTN_SPEC_VARLEN) const bool VARLEN = false;

#ifdef STORAGE_F16
#define ELEM4 f16vec4
#else
#define ELEM4 vec4
#endif

// Head dims in vec4 words; a dim that is not a multiple of 4 has a partial last word, whose
// missing lanes LOAD_HEAD4 reads as 0 and STORE_HEAD4 skips.
const uint DK4 = (DK + 3) / 4;
const uint DV4 = (DV + 3) / 4;
const float NEG_INF = -1.0 / 0.0;  // only the lse of a row with no visible key
// Finite sentinels, so that the online softmax does not rely on IEEE -inf arithmetic (which float
// controls may let a driver assume away): a masked logit is MASKED (-FLT_MAX) and a row's running
// max starts at M_START (-FLT_MAX / 2); exp2(MASKED - m) is 0 for every m >= M_START, and a row
// whose max is still M_START has seen no visible key (its sum is 0). maskedLogit() also maps a
// -inf logit (a -inf bias) to MASKED.
const float MASKED = -3.4028234663852886e38;
const float M_START = MASKED * 0.5;
float maskedLogit(float x) { return max(x, MASKED); }
const float LOG2E = 1.4426950408889634;
const float LN2 = 0.6931471805599453;

layout(std430, set = 0, binding = ATTN_BIAS_BINDING) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = ATTN_KEEP_BINDING) readonly buffer Keep { int keepMask[]; };
layout(std430, set = 0, binding = ATTN_KEYLEN_BINDING) readonly buffer KeyLens { int keyLens[]; };
layout(std430, set = 0, binding = ATTN_SINKS_BINDING) readonly buffer Sinks { float sinks[]; };
layout(std430, set = 0, binding = ATTN_ALIBI_BINDING) readonly buffer Alibi { float alibiSlopes[]; };
layout(std430, set = 0, binding = ATTN_SEQS_BINDING) readonly buffer Seqs { int seqs[]; };

// Word word_ (< ceil(D / 4)) of the head vector starting at element `row` of `buf`, as vec4: lanes
// past D are 0 and never read. The checks fold away where D is a multiple of 4 or word_ a constant
// after unrolling (a word indexed at run time would otherwise branch around each lane's load).
#define HEAD_LANE_INSIDE(word_, lane_, D) ((D) % 4 == 0 || 4 * (word_) + (lane_) < (D))
#define LOAD_HEAD4(buf, row, word_, D)                                                         \
  vec4(float(buf[(row) + 4 * (word_)]),                                                      \
       HEAD_LANE_INSIDE(word_, 1, D) ? float(buf[(row) + 4 * (word_) + 1]) : 0.0,            \
       HEAD_LANE_INSIDE(word_, 2, D) ? float(buf[(row) + 4 * (word_) + 2]) : 0.0,            \
       HEAD_LANE_INSIDE(word_, 3, D) ? float(buf[(row) + 4 * (word_) + 3]) : 0.0)
// Writes the lanes of word word_ that are inside the head dim D.
#define STORE_HEAD4(buf, row, word_, D, value_)                                                 \
  {                                                                                     \
    buf[(row) + 4 * (word_)] = TO_ELEM((value_).x);                                           \
    if (HEAD_LANE_INSIDE(word_, 1, D)) buf[(row) + 4 * (word_) + 1] = TO_ELEM((value_).y);   \
    if (HEAD_LANE_INSIDE(word_, 2, D)) buf[(row) + 4 * (word_) + 2] = TO_ELEM((value_).z);   \
    if (HEAD_LANE_INSIDE(word_, 3, D)) buf[(row) + 4 * (word_) + 3] = TO_ELEM((value_).w);   \
  }

// With VARLEN an invocation works in one sequence, whose offsets loadSequence(b) reads once (the
// functions below take b for the other modes); kernels with VARLEN call it before anything else.
uint seqFirstQuery = 0u, seqFirstKey = 0u;
int seqQueries = 0, seqKeys = 0;
void loadSequence(uint b) {
  if (!VARLEN) return;
  seqFirstQuery = uint(seqs[b]);
  seqQueries = seqs[b + 1u] - seqs[b];
  seqFirstKey = uint(seqs[p.batch + 1u + b]);
  seqKeys = seqs[p.batch + 2u + b] - seqs[p.batch + 1u + b];
}

// Packed row of sequence b's first query row and first key (0 without VARLEN).
uint firstQueryRow(uint b) { return VARLEN ? seqFirstQuery : 0u; }
uint firstKeyRow(uint b) { return VARLEN ? seqFirstKey : 0u; }

// Query rows batch b really has: Lq, or its sequence's.
int queryCount(uint b) { return VARLEN ? seqQueries : int(p.lq); }

// Keys batch b really has: Lk, its sequence's, or its key length clamped to [0, Lk].
int keyCount(uint b) {
  if (VARLEN) return seqKeys;
  return HAS_KEYLEN ? clamp(keyLens[b], 0, int(p.lk)) : int(p.lk);
}

// Where row i's diagonal is: key i + diagShift(b).
int diagShift(uint b) { return ALIGN_KEYLEN ? keyCount(b) - queryCount(b) : p.diagShift; }

// Where row i of head h in batch b keeps its lse: [B, Hq, Lq], or [Hq, total rows] with VARLEN.
uint lseIndex(uint b, uint h, uint i) {
  return VARLEN ? h * uint(seqs[p.batch]) + seqFirstQuery + i : (b * p.heads + h) * p.lq + i;
}

// Keys [lo, hi) that rows first..last of batch b can see at all (before keep-mask and bias).
// Empty when hi <= lo.
void keyRange(uint b, uint first, uint last, out int lo, out int hi) {
  lo = 0;
  hi = int(p.lk);
  if (HAS_KEYLEN || VARLEN) hi = min(hi, keyCount(b));
  if (HAS_BAND) {
    lo = max(lo, int(first) + diagShift(b) - p.windowLeft);
    hi = min(hi, int(last) + diagShift(b) + p.windowRight + 1);
  }
}

// Whether row i sees key j, given j inside the range keyRange gave for a block holding row i.
bool keyVisible(uint b, uint h, uint i, int j, int lo, int hi) {
  if (j < lo || j >= hi) return false;
  if (HAS_BAND) {
    int rel = j - (int(i) + diagShift(b));
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

// A visible key's logit after softcap and ALiBi, in the kernels' log2 units (s = logit * log2(e)).
// ALiBi follows FlashAttention: -slope * |i + Lk - Lq - j| with Lk the batch's key count, whatever
// the causal alignment.
float shapeLogit(float s, uint b, uint h, uint i, int j) {
  if (SOFTCAP > 0.0) s = (SOFTCAP * LOG2E) * stableTanh(s * (LN2 / SOFTCAP));
  if (HAS_ALIBI) {
    const float slope = alibiSlopes[b * ALIBI_STRIDE_B + h];
    s -= slope * LOG2E * abs(float(int(i) + keyCount(b) - queryCount(b) - j));
  }
  return s;
}

// A row's final state: `scale` multiplies its accumulator into the output and lseLog2 is its
// log-sum-exp in log2 units, from the running max m (log2 units) and sum l. With sinks, head h's
// sink logit joins the denominator (it takes no value row). A row with no visible key gives
// scale 0 and lse -inf, or the sink's logit.
void finishRow(uint h, float m, float l, out float scale, out float lseLog2) {
  const float sink = HAS_SINKS ? sinks[h] * LOG2E : NEG_INF;
  if (sink == NEG_INF) {
    scale = l > 0.0 ? 1.0 / l : 0.0;
    lseLog2 = l > 0.0 ? m + log2(l) : NEG_INF;
    return;
  }
  const float mAll = l > 0.0 ? max(m, sink) : sink;
  const float keep = l > 0.0 ? exp2(m - mAll) : 0.0;
  const float total = l * keep + exp2(sink - mAll);
  scale = keep / total;
  lseLog2 = mAll + log2(total);
}

#endif
