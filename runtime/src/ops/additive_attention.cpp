#include "vkattn/ops/additive_attention.hpp"

#include <kernel_interface.h>
#include <push_constants.h>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn {
namespace {

constexpr uint32_t kAdditiveWorkgroup = 64;

// A contiguous input of the given rank and dtype (f32 data, i32 masks) that fits one binding.
void requireInput(const Context& ctx, const std::string& name, const TensorView& t, int64_t rank,
                  DType dtype = DType::F32) {
  using namespace detail;
  requireTensor(name, t);
  requireDtype(name, t, {dtype});
  requireRank(name, t, rank, rank);
  requireContiguous(name, t);
  requireFitsDevice(ctx, name, t);
}

// Loops of `count` iterations in one invocation must stay under the driver's limit.
void requireLoop(const Context& ctx, const std::string& name, int64_t count, const std::string& what) {
  const uint32_t limit = ctx.info().loopIterationLimit;
  if (limit && count >= limit - limit / 16)
    throw Unsupported("argument '" + name + "': " + what + " of " + std::to_string(count) + " exceeds what " +
                      ctx.info().name + " can loop over in one invocation");
}

// Strides of a [B|1, Lq|1, Lk] mask over (b, i), in elements.
void maskStrides(const std::string& name, const TensorView& m, int64_t B, int64_t Lq, int64_t Lk, uint32_t& strideB,
                 uint32_t& strideL) {
  if (m.rank() != 3 || (m.dim(0) != 1 && m.dim(0) != B) || (m.dim(1) != 1 && m.dim(1) != Lq) || m.dim(2) != Lk)
    throw InvalidArgument(name, "shape " + toString(m.shape) + ", expected [" + std::to_string(B) + " or 1, " +
                                    std::to_string(Lq) + " or 1, " + std::to_string(Lk) + "]");
  strideL = m.dim(1) == 1 ? 0 : static_cast<uint32_t>(Lk);
  strideB = m.dim(0) == 1 ? 0 : static_cast<uint32_t>(m.dim(1) * Lk);
}

}  // namespace

void additiveAttention(Context& ctx, const TensorView& query, const TensorView& key, const TensorView& value,
                       const TensorView& wq, const TensorView& wk, const TensorView& v, const TensorView& out,
                       const AdditiveAttentionOptions& o) {
  using namespace detail;
  requireInput(ctx, "query", query, 3);
  requireInput(ctx, "key", key, 3);
  requireInput(ctx, "value", value, 3);
  requireInput(ctx, "w_q", wq, 2);
  requireInput(ctx, "w_k", wk, 2);
  requireInput(ctx, "v", v, 1);
  requireInput(ctx, "out", out, 3);
  const int64_t B = query.dim(0), Lq = query.dim(1), Dq = query.dim(2);
  const int64_t Lk = key.dim(1), Dk = key.dim(2), Dv = value.dim(2), A = v.dim(0);
  if (key.dim(0) != B)
    throw InvalidArgument("key", "batch " + std::to_string(key.dim(0)) + " differs from query's " + std::to_string(B));
  requireShape("value", value, {B, Lk, Dv});
  requireShape("w_q", wq, {A, Dq});
  requireShape("w_k", wk, {A, Dk});
  requireShape("out", out, {B, Lq, Dv});
  requireLoop(ctx, "query", std::max(Dq, Dk), "a feature size");
  requireLoop(ctx, "v", A, "an attention size");
  requireLoop(ctx, "key", Lk, "a key length");

  pc::AdditiveParams p{};
  p.batch = static_cast<uint32_t>(B);
  p.lq = static_cast<uint32_t>(Lq);
  p.lk = static_cast<uint32_t>(Lk);
  p.attnDim = static_cast<uint32_t>(A);
  p.dv = static_cast<uint32_t>(Dv);
  p.causal = o.causal ? 1 : 0;
  const Buffer* bias = query.buffer;
  const Buffer* keep = query.buffer;
  const Buffer* keyLengths = query.buffer;
  if (o.bias) {
    requireInput(ctx, "bias", *o.bias, 3);
    maskStrides("bias", *o.bias, B, Lq, Lk, p.biasStrideB, p.biasStrideL);
    p.hasBias = 1;
    bias = o.bias->buffer;
  }
  if (o.keepMask) {
    requireInput(ctx, "keepMask", *o.keepMask, 3, DType::I32);
    maskStrides("keepMask", *o.keepMask, B, Lq, Lk, p.keepStrideB, p.keepStrideL);
    p.hasKeep = 1;
    keep = o.keepMask->buffer;
  }
  if (o.keyLengths) {
    requireInput(ctx, "keyLengths", *o.keyLengths, 1, DType::I32);
    requireShape("keyLengths", *o.keyLengths, {B});
    p.hasKeyLengths = 1;
    keyLengths = o.keyLengths->buffer;
  }
  // Temporaries are scratch views: inside a caller's open Batch they must outlive this function.
  Batch batch(ctx);
  TensorView weights;
  if (o.weights) {
    requireInput(ctx, "weights", *o.weights, 3);
    requireShape("weights", *o.weights, {B, Lq, Lk});
    weights = *o.weights;
  } else {
    weights = ctx.scratch({B, Lq, Lk});
  }
  const TensorView qp = ctx.scratch({B, Lq, A}), kp = ctx.scratch({B, Lk, A});

  const SpecConstants constants = SpecConstants().set(SPEC_WORKGROUP_SIZE, kAdditiveWorkgroup);
  auto projectRows = [&](const TensorView& x, const TensorView& w, const TensorView& y, const char* xName,
                         const char* wName, int64_t rows, int64_t inDim) {
    pc::ProjectParams pp{static_cast<uint32_t>(rows), static_cast<uint32_t>(inDim), static_cast<uint32_t>(A), 0};
    detail::recordOp(ctx, {detail::shaders::additive_project, ADDITIVE_PROJECT_BINDING_COUNT, constants},
                     {{ADDITIVE_PROJECT_BINDING_X, x.buffer},
                      {ADDITIVE_PROJECT_BINDING_W, w.buffer},
                      {ADDITIVE_PROJECT_BINDING_Y, y.buffer}},
                     pp, groupsFor(ctx.device(), static_cast<uint64_t>(rows * A), kAdditiveWorkgroup),
                     {"additive_attention", {xName, wName}, ADDITIVE_PROJECT_BINDING_STATUS});
  };
  projectRows(query, wq, qp, "query", "w_q", B * Lq, Dq);
  projectRows(key, wk, kp, "key", "w_k", B * Lk, Dk);

  detail::recordOp(ctx, {detail::shaders::additive_scores, ADDITIVE_SCORES_BINDING_COUNT, constants},
                   {{ADDITIVE_SCORES_BINDING_QP, qp.buffer},
                    {ADDITIVE_SCORES_BINDING_KP, kp.buffer},
                    {ADDITIVE_SCORES_BINDING_VEC, v.buffer},
                    {ADDITIVE_SCORES_BINDING_BIAS, bias},
                    {ADDITIVE_SCORES_BINDING_KEEP, keep},
                    {ADDITIVE_SCORES_BINDING_KEYLEN, keyLengths},
                    {ADDITIVE_SCORES_BINDING_SCORES, weights.buffer}},
                   p, groupsFor(ctx.device(), static_cast<uint64_t>(B * Lq * Lk), kAdditiveWorkgroup),
                   {"additive_attention", {"v", "bias"}, ADDITIVE_SCORES_BINDING_STATUS});

  TensorView rows = weights;
  rows.shape = {B * Lq, Lk};
  rows.strides = contiguousStrides(rows.shape);
  softmax(ctx, rows, rows);  // masked (-inf) keys get weight 0; rows with none left are zeros

  detail::recordOp(ctx, {detail::shaders::additive_pv, ADDITIVE_PV_BINDING_COUNT, constants},
                   {{ADDITIVE_PV_BINDING_WEIGHTS, weights.buffer},
                    {ADDITIVE_PV_BINDING_VALUE, value.buffer},
                    {ADDITIVE_PV_BINDING_OUT, out.buffer}},
                   p, groupsFor(ctx.device(), static_cast<uint64_t>(B * Lq * Dv), kAdditiveWorkgroup),
                   {"additive_attention", {"value"}, ADDITIVE_PV_BINDING_STATUS});
  batch.submit();
}

Tensor additiveAttention(Context& ctx, const TensorView& query, const TensorView& key, const TensorView& value,
                         const TensorView& wq, const TensorView& wk, const TensorView& v,
                         const AdditiveAttentionOptions& options) {
  detail::requireTensor("query", query);
  detail::requireTensor("value", value);
  if (query.rank() != 3 || value.rank() != 3) throw InvalidArgument("query", "query and value must be rank 3");
  Tensor out = ctx.tensor({query.dim(0), query.dim(1), value.dim(2)});
  additiveAttention(ctx, query, key, value, wq, wk, v, out, options);
  return out;
}

}  // namespace vkattn
