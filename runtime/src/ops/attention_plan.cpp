#include "attention_plan.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "checks.hpp"
#include "runtime_shader_ids.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn::detail {
namespace {

// Window extents that mean "unbounded": far past any length while i + shift +- extent stays in int32.
constexpr int64_t kUnbounded = int64_t{1} << 29;
constexpr int64_t kMaxLength = int64_t{1} << 28;

void requireHeadDim(const std::string& name, int64_t d) {
  if (d < 1 || d > kMaxHeadDim)
    throw InvalidArgument(name,
                          "head dim " + std::to_string(d) + " unsupported; expected 1.." + std::to_string(kMaxHeadDim));
}

// A per-head f32 vector: [Hq], or [B, Hq] where perBatch is allowed; contiguous.
void requireHeadVector(const Context& ctx, const AttentionPlan& plan, const std::string& name, const TensorView& t,
                       bool perBatch) {
  requireTensor(name, t);
  requireDtype(name, t, {DType::F32});
  requireContiguous(name, t);
  requireFitsDevice(ctx, name, t);
  const bool perHead = t.rank() == 1 && t.dim(0) == plan.headsQ;
  const bool perBatchHead = perBatch && t.rank() == 2 && t.dim(0) == plan.batch && t.dim(1) == plan.headsQ;
  if (!perHead && !perBatchHead)
    throw InvalidArgument(
        name, "shape " + toString(t.shape) + ", expected [" + std::to_string(plan.headsQ) + "]" +
                  (perBatch ? " or [" + std::to_string(plan.batch) + ", " + std::to_string(plan.headsQ) + "]" : ""));
}

// q (f32 or f16), or k and v (`storageFormats`: also bf16, Q8_0, Q4_0) as [B, H, L, D] views.
void requireAttentionTensor(const Context& ctx, const std::string& name, const TensorView& t,
                            bool storageFormats = false) {
  requireTensor(name, t);
  if (storageFormats)
    requireDtype(name, t, {DType::F32, DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0});
  else
    requireDtype(name, t, {DType::F32, DType::F16});
  requireRank(name, t, 4, 4);
  requireDtypeSupported(ctx, name, t);
  requireFitsDevice(ctx, name, t);
  if (t.strides[3] != 1) throw InvalidArgument(name, "the head dim (last) must be contiguous (stride 1)");
  for (int i = 0; i < 3; ++i) checkedU32(name, t.strides[static_cast<std::size_t>(i)]);
  checkedU32(name, t.offset);
}

// Mask shape [B or 1, Hq or 1, Lq or 1, Lk] (rank 2..4, missing leading dims are 1), contiguous;
// returns the element strides over (b, h, i) with 0 for broadcast dims.
void maskStrides(const Context& ctx, const AttentionPlan& plan, const std::string& name, const TensorView& m,
                 DType dtype, uint32_t& strideB, uint32_t& strideH, uint32_t& strideL) {
  requireTensor(name, m);
  requireDtype(name, m, {dtype});
  requireRank(name, m, 2, 4);
  requireContiguous(name, m);
  requireFitsDevice(ctx, name, m);
  int64_t dims[4] = {1, 1, 1, 1};
  for (int64_t i = 0; i < m.rank(); ++i) dims[4 - m.rank() + i] = m.shape[static_cast<std::size_t>(i)];
  const int64_t full[4] = {plan.batch, plan.headsQ, plan.lq, plan.lk};
  for (int i = 0; i < 4; ++i)
    if ((dims[i] != 1 || i == 3) && dims[i] != full[i])
      throw InvalidArgument(name, "shape " + toString(m.shape) + " does not broadcast to [" +
                                      std::to_string(plan.batch) + ", " + std::to_string(plan.headsQ) + ", " +
                                      std::to_string(plan.lq) + ", " + std::to_string(plan.lk) +
                                      "] (each leading dim must be 1 or full, the last Lk)");
  const int64_t sL = plan.lk, sH = dims[2] * sL, sB = dims[1] * sH;
  strideL = dims[2] == 1 ? 0 : checkedU32(name, sL);
  strideH = dims[1] == 1 ? 0 : checkedU32(name, sH);
  strideB = dims[0] == 1 ? 0 : checkedU32(name, sB);
}

// Offsets of a packed batch: B + 1 values from 0 to `total`, nondecreasing.
void requireOffsets(const std::string& name, const std::vector<int32_t>& cu, int64_t total, const std::string& of) {
  if (cu.size() < 2) throw InvalidArgument(name, "needs at least 2 offsets (B + 1 for B sequences)");
  if (cu.front() != 0) throw InvalidArgument(name, "must start at 0, got " + std::to_string(cu.front()));
  for (std::size_t b = 1; b < cu.size(); ++b)
    if (cu[b] < cu[b - 1])
      throw InvalidArgument(name, "must not decrease: " + std::to_string(cu[b]) + " follows " +
                                      std::to_string(cu[b - 1]) + " at " + std::to_string(b));
  if (cu.back() != total)
    throw InvalidArgument(name, "ends at " + std::to_string(cu.back()) + ", not at " + of + "'s " +
                                    std::to_string(total) + " packed rows");
}

// A varlen batch: checks the offsets against q's and k's packed rows and turns the plan's batch,
// lq and lk into the sequence count and the longest sequence's rows and keys.
void planSequences(AttentionPlan& plan, const TensorView& q, const TensorView& k, const AttentionOptions& o) {
  if (!o.cuSeqlensQ || !o.cuSeqlensK)
    throw InvalidArgument(o.cuSeqlensQ ? "cuSeqlensK" : "cuSeqlensQ",
                          "a packed batch needs both cuSeqlensQ and cuSeqlensK");
  if (q.dim(0) != 1) throw InvalidArgument("q", "a packed batch is [1, Hq, totalQ, Dk], got " + toString(q.shape));
  if (k.dim(0) != 1) throw InvalidArgument("k", "a packed batch is [1, Hkv, totalK, Dk], got " + toString(k.shape));
  const std::vector<int32_t>& cq = *o.cuSeqlensQ;
  const std::vector<int32_t>& ck = *o.cuSeqlensK;
  requireOffsets("cuSeqlensQ", cq, q.dim(2), "q");
  requireOffsets("cuSeqlensK", ck, k.dim(2), "k");
  if (ck.size() != cq.size())
    throw InvalidArgument("cuSeqlensK",
                          std::to_string(ck.size()) + " offsets for cuSeqlensQ's " + std::to_string(cq.size()));
  const std::pair<const char*, bool> refused[] = {{"bias", o.bias.has_value()},
                                                  {"keepMask", o.keepMask.has_value()},
                                                  {"keyLengths", o.keyLengths.has_value()},
                                                  {"blockTable", o.blockTable.has_value()}};
  for (const auto& [name, given] : refused)
    if (given) throw InvalidArgument(name, "is not taken with a packed batch (cuSeqlensQ / cuSeqlensK)");
  plan.varlen = true;
  plan.totalQ = q.dim(2);
  plan.batch = static_cast<int64_t>(cq.size()) - 1;
  plan.lq = plan.lk = 1;
  for (std::size_t b = 0; b + 1 < cq.size(); ++b) {
    plan.lq = std::max<int64_t>(plan.lq, cq[b + 1] - cq[b]);
    plan.lk = std::max<int64_t>(plan.lk, ck[b + 1] - ck[b]);
  }
  plan.sequences = cq;
  plan.sequences.insert(plan.sequences.end(), ck.begin(), ck.end());
}

}  // namespace

AttentionPlan planAttention(const Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                            const AttentionOptions& o) {
  requireAttentionTensor(ctx, "q", q);
  requireAttentionTensor(ctx, "k", k, true);
  requireAttentionTensor(ctx, "v", v, true);
  requireSameDtype("v", v, "k", k);
  if (k.dtype == DType::F32 || k.dtype == DType::F16) requireSameDtype("k", k, "q", q);
  for (const auto& [name, t] : {std::pair<const char*, const TensorView&>{"k", k}, {"v", v}})
    if (isBlockFormat(t.dtype)) {
      const int64_t block = blockElements(t.dtype);
      bool whole = t.dim(3) % block == 0 && t.offset % block == 0;
      for (int i = 0; i < 3; ++i) whole = whole && t.strides[static_cast<std::size_t>(i)] % block == 0;
      if (!whole)
        throw InvalidArgument(name, std::string(toString(t.dtype)) + " stores blocks of " + std::to_string(block) +
                                        " elements: the head dim (" + std::to_string(t.dim(3)) +
                                        "), the offset and every stride must be multiples of " + std::to_string(block));
    }
  AttentionPlan plan;
  plan.dtype = q.dtype;
  plan.kvDtype = k.dtype;
  plan.batch = q.dim(0);
  plan.headsQ = q.dim(1);
  plan.lq = q.dim(2);
  plan.dk = q.dim(3);
  plan.headsKv = k.dim(1);
  plan.lk = k.dim(2);
  plan.dv = v.dim(3);
  const std::string kShape = toString(k.shape), vShape = toString(v.shape);
  if (o.blockTable) {
    // k and v are [numBlocks, Hkv, blockSize, D]; the table [B, maxBlocks] gives each sequence's
    // blocks, so the key range is maxBlocks * blockSize.
    const TensorView& table = *o.blockTable;
    requireTensor("blockTable", table);
    requireDtype("blockTable", table, {DType::I32});
    requireContiguous("blockTable", table);
    requireRank("blockTable", table, 2, 2);
    if (table.dim(0) != plan.batch || table.dim(1) < 1)
      throw InvalidArgument("blockTable", "shape " + toString(table.shape) + " must be [" + std::to_string(plan.batch) +
                                              " (q's batch), blocks per sequence >= 1]");
    if (v.dim(0) != k.dim(0))
      throw InvalidArgument("v", "cache blocks of shape " + vShape + " differ from k's " + kShape);
    plan.pageSize = checkedU32("k", k.dim(2));
    plan.lk = table.dim(1) * k.dim(2);
    plan.pages = table.buffer;
  } else {
    if (k.dim(0) != plan.batch)
      throw InvalidArgument("k", "batch of shape " + kShape + " differs from q's " + toString(q.shape));
    if (v.dim(0) != plan.batch)
      throw InvalidArgument("v", "batch of shape " + vShape + " differs from q's " + toString(q.shape));
  }
  if (v.dim(1) != plan.headsKv) throw InvalidArgument("v", "heads of shape " + vShape + " differ from k's " + kShape);
  if (v.dim(2) != k.dim(2)) throw InvalidArgument("v", "length of shape " + vShape + " differs from k's " + kShape);
  if (k.dim(3) != plan.dk)
    throw InvalidArgument("k", "head dim " + std::to_string(k.dim(3)) + " differs from q's " + std::to_string(plan.dk));
  if (plan.headsQ % plan.headsKv != 0)
    throw InvalidArgument(
        "k", std::to_string(plan.headsKv) + " kv heads do not divide q's " + std::to_string(plan.headsQ) + " heads");
  requireHeadDim("q", plan.dk);
  requireHeadDim("v", plan.dv);
  if (o.cuSeqlensQ || o.cuSeqlensK) planSequences(plan, q, k, o);
  if (plan.lq >= kMaxLength) throw Unsupported("argument 'q': more than 2^28 query rows");
  if (plan.lk >= kMaxLength) throw Unsupported("argument 'k': more than 2^28 keys");

  const double scale = o.scale ? *o.scale : 1.0 / std::sqrt(static_cast<double>(plan.dk));
  if (!std::isfinite(scale)) throw InvalidArgument("scale", "must be finite");

  pc::AttentionParams& p = plan.params;
  p.batch = checkedU32("q", plan.batch);
  p.heads = checkedU32("q", plan.headsQ);
  p.kvGroup = checkedU32("k", plan.headsQ / plan.headsKv);
  p.lq = checkedU32("q", plan.lq);
  p.lk = checkedU32("k", plan.lk);
  auto strides = [](const TensorView& t, uint32_t& b, uint32_t& h, uint32_t& l, uint32_t& off) {
    b = static_cast<uint32_t>(t.strides[0]);
    h = static_cast<uint32_t>(t.strides[1]);
    l = static_cast<uint32_t>(t.strides[2]);
    off = static_cast<uint32_t>(t.offset);
  };
  strides(q, p.qStrideB, p.qStrideH, p.qStrideL, p.qOffset);
  strides(k, p.kStrideB, p.kStrideH, p.kStrideL, p.kOffset);
  strides(v, p.vStrideB, p.vStrideH, p.vStrideL, p.vOffset);
  if (plan.varlen) p.qStrideB = p.kStrideB = p.vStrideB = 0;  // sequences are rows of one packed batch
  plan.kvAligned =
      plan.dk % 4 == 0 && plan.dv % 4 == 0 &&
      (p.kStrideB | p.kStrideH | p.kStrideL | p.kOffset | p.vStrideB | p.vStrideH | p.vStrideL | p.vOffset) % 4 == 0;
  p.scaleLog2 = static_cast<float>(scale * 1.4426950408889634);

  if (o.windowLeft && *o.windowLeft < 0) throw InvalidArgument("windowLeft", "must be >= 0");
  if (o.windowRight && *o.windowRight < 0) throw InvalidArgument("windowRight", "must be >= 0");
  int64_t left = o.windowLeft ? std::min(*o.windowLeft, kUnbounded) : kUnbounded;
  int64_t right = o.windowRight ? std::min(*o.windowRight, kUnbounded) : kUnbounded;
  if (o.causal) right = 0;
  plan.hasBand = o.causal || o.windowLeft || o.windowRight;
  p.diagShift = o.alignment == MaskAlignment::BottomRight ? static_cast<int32_t>(plan.lk - plan.lq) : 0;
  plan.alignToKeyLengths = o.alignment == MaskAlignment::BottomRightOfKeyLengths ||
                           (plan.varlen && o.alignment == MaskAlignment::BottomRight);
  if (plan.alignToKeyLengths && !o.keyLengths && !plan.varlen)
    throw InvalidArgument("alignment", "BottomRightOfKeyLengths needs keyLengths");
  p.windowLeft = static_cast<int32_t>(left);
  p.windowRight = static_cast<int32_t>(right);

  plan.bias = plan.keep = plan.keyLengths = q.buffer;
  if (o.bias) {
    maskStrides(ctx, plan, "bias", *o.bias, DType::F32, p.biasStrideB, p.biasStrideH, p.biasStrideL);
    plan.bias = o.bias->buffer;
    plan.hasBias = true;
  }
  if (o.keepMask) {
    maskStrides(ctx, plan, "keepMask", *o.keepMask, DType::I32, p.keepStrideB, p.keepStrideH, p.keepStrideL);
    plan.keep = o.keepMask->buffer;
    plan.hasKeep = true;
  }
  if (o.keyLengths) {
    const TensorView& lens = *o.keyLengths;
    requireTensor("keyLengths", lens);
    requireDtype("keyLengths", lens, {DType::I32});
    requireContiguous("keyLengths", lens);
    requireShape("keyLengths", lens, {plan.batch});
    plan.keyLengths = lens.buffer;
    plan.hasKeyLengths = true;
  }
  if (!(o.softcap >= 0.0f) || !std::isfinite(o.softcap))
    throw InvalidArgument("softcap", "must be finite and >= 0 (0 turns it off), got " + std::to_string(o.softcap));
  plan.softcap = o.softcap;
  plan.sinks = plan.alibi = q.buffer;
  if (!plan.pages) plan.pages = q.buffer;
  plan.seqs = q.buffer;
  if (o.sinks) {
    requireHeadVector(ctx, plan, "sinks", *o.sinks, false);
    plan.sinks = o.sinks->buffer;
    plan.hasSinks = true;
  }
  if (o.alibiSlopes) {
    requireHeadVector(ctx, plan, "alibiSlopes", *o.alibiSlopes, true);
    plan.alibi = o.alibiSlopes->buffer;
    plan.hasAlibi = true;
    plan.alibiStrideB = o.alibiSlopes->rank() == 2 ? static_cast<uint32_t>(plan.headsQ) : 0;
  }
  return plan;
}

void setAttentionOutput(const Context& ctx, AttentionPlan& plan, const TensorView& out, const std::string& name) {
  requireTensor(name, out);
  requireRank(name, out, 4, 4);
  requireShape(
      name, out,
      plan.varlen ? Shape{1, plan.headsQ, plan.totalQ, plan.dv} : Shape{plan.batch, plan.headsQ, plan.lq, plan.dv});
  if (out.dtype != plan.dtype)
    throw InvalidArgument(name,
                          std::string("dtype ") + toString(out.dtype) + " differs from q's " + toString(plan.dtype));
  requireFitsDevice(ctx, name, out);
  if (out.strides[3] != 1) throw InvalidArgument(name, "the head dim (last) must be contiguous (stride 1)");
  for (int i = 0; i < 3; ++i)
    if (out.shape[static_cast<std::size_t>(i)] > 1 && out.strides[static_cast<std::size_t>(i)] == 0)
      throw InvalidArgument(name, "broadcast (zero) strides would overlap outputs");
  pc::AttentionParams& p = plan.params;
  p.oStrideB = plan.varlen ? 0 : checkedU32(name, out.strides[0]);  // a packed batch: rows of one
  p.oStrideH = checkedU32(name, out.strides[1]);
  p.oStrideL = checkedU32(name, out.strides[2]);
  p.oOffset = checkedU32(name, out.offset);
}

void checkLse(const AttentionPlan& plan, const TensorView& lse) {
  requireTensor("lse", lse);
  requireDtype("lse", lse, {DType::F32});
  requireContiguous("lse", lse);
  if (lse.offset != 0) throw InvalidArgument("lse", "must start at its buffer's first element (a view with an offset)");
  requireShape("lse", lse, plan.varlen ? Shape{1, plan.headsQ, plan.totalQ} : Shape{plan.batch, plan.headsQ, plan.lq});
}

void requireDenseKvFormat(const AttentionPlan& plan, const std::string& path) {
  if (plan.kvDtype != plan.dtype)
    throw Unsupported(std::string("argument 'k': k and v stored as ") + toString(plan.kvDtype) +
                      " are read by the rows kernel only, not " + path);
}

void requireDenseBatch(const AttentionPlan& plan, const std::string& path) {
  if (plan.varlen)
    throw Unsupported("argument 'cuSeqlensQ': a packed batch is read by the rows kernel only, not " + path);
}

ShaderId rowsShader(const AttentionPlan& plan) {
  if (plan.kvDtype == plan.dtype) return shaders::attention_rows.of(plan.dtype);
  if (const auto* pair = shaders::attention_rows_kv_by_format.find(plan.kvDtype)) return pair->of(plan.dtype);
  throw Error(std::string("the rows kernel has no module for K/V stored as ") + toString(plan.kvDtype));
}

namespace {
// Every Q row and every output row starts at a multiple of 4 elements and holds whole vec4 words.
bool qoAligned(const AttentionPlan& plan) {
  const pc::AttentionParams& p = plan.params;
  return plan.dk % 4 == 0 && plan.dv % 4 == 0 &&
         (p.qStrideB | p.qStrideH | p.qStrideL | p.qOffset | p.oStrideB | p.oStrideH | p.oStrideL | p.oOffset) % 4 == 0;
}
}  // namespace

SpecConstants attentionConstants(const AttentionPlan& plan, const AttentionKernelShape& shape) {
  SpecConstants c;
  c.set(SPEC_WORKGROUP_SIZE, shape.workgroup)
      .set(ATTN_SPEC_DK, static_cast<uint32_t>(plan.dk))
      .set(ATTN_SPEC_DV, static_cast<uint32_t>(plan.dv))
      .set(ATTN_SPEC_HAS_BAND, plan.hasBand)
      .set(ATTN_SPEC_HAS_BIAS, plan.hasBias)
      .set(ATTN_SPEC_HAS_KEEP, plan.hasKeep)
      .set(ATTN_SPEC_HAS_KEYLEN, plan.hasKeyLengths)
      .set(ATTN_SPEC_WRITE_LSE, shape.writeLse)
      .set(ATTN_SPEC_ROWS, shape.rows)
      .set(ATTN_SPEC_KEY_BLOCK, shape.keyBlock)
      .set(ATTN_SPEC_ALIGNED, plan.kvAligned)
      .set(ATTN_SPEC_QO_ALIGNED, qoAligned(plan))
      .set(ATTN_SPEC_SPLIT, shape.split)
      .set(ATTN_SPEC_LANE_KEYS, shape.laneKeys)
      .set(ATTN_SPEC_STAGES, shape.stages)
      .set(ATTN_SPEC_SUBGROUP_SIZE, shape.subgroup)
      .set(FRAG_SPEC_M, shape.fragM)
      .set(FRAG_SPEC_N, shape.fragN)
      .set(FRAG_SPEC_K, shape.fragK)
      .set(ATTN_SPEC_LOCKSTEP_SUBGROUPS, shape.lockstepSubgroups)
      .set(ATTN_SPEC_SHARED_Q, shape.sharedQ ? 1u : 0u)
      .set(ATTN_SPEC_V_TRANSPOSED, shape.vTransposed ? 1u : 0u)
      .set(ATTN_SPEC_SOFTMAX_REGISTERS, shape.softmax)
      .set(ATTN_SPEC_FRAG_LANE_FREE, shape.fragLaneFree)
      .set(ATTN_SPEC_FRAG_ELEM_FREE, shape.fragElemFree)
      .set(ATTN_SPEC_SOFTCAP, plan.softcap)
      .set(ATTN_SPEC_HAS_SINKS, plan.hasSinks)
      .set(ATTN_SPEC_HAS_ALIBI, plan.hasAlibi)
      .set(ATTN_SPEC_ALIBI_STRIDE_B, plan.alibiStrideB)
      .set(ATTN_SPEC_ROW_LANES, shape.rowLanes)
      .set(ATTN_SPEC_PAGE_SIZE, plan.pageSize)
      .set(ATTN_SPEC_ALIGN_KEYLEN, plan.alignToKeyLengths)
      .set(ATTN_SPEC_VARLEN, plan.varlen);
  return c;
}

Shape attentionOutputShape(const TensorView& q, const TensorView& v) {
  requireTensor("q", q);
  requireTensor("v", v);
  requireRank("q", q, 4, 4);
  requireRank("v", v, 4, 4);
  return {q.dim(0), q.dim(1), q.dim(2), v.dim(3)};
}

}  // namespace vkattn::detail
