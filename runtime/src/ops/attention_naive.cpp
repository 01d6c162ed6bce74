// The unfused attention path (scores to memory, the softmax row op, P V) and attention weights
// (the same scores, then the softmax row op in place; no V involved).
#include <numeric>
#include <string>

#include "attention_plan.hpp"
#include "checks.hpp"
#include "op_dispatch.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn {
namespace {

using detail::AttentionKernelShape;
using detail::AttentionPlan;

constexpr uint32_t kNaiveWorkgroup = 64;

// A device buffer of `count` floats that lives until the recorded work has run.
const Buffer& scratch(Context& ctx, uint64_t count, const std::string& what) {
  const uint64_t bytes = count * 4;
  if (bytes > ctx.info().maxStorageBufferRange || count > 0xffffffffull)
    throw Unsupported(what + " needs " + std::to_string(bytes) + " bytes in one binding; " + ctx.info().name +
                      " allows " + std::to_string(ctx.info().maxStorageBufferRange));
  return ctx.recorder().scratch(static_cast<std::size_t>(bytes), what.c_str());
}

const Buffer& headIndexBuffer(Context& ctx, const std::vector<int32_t>& heads) {
  return ctx.recorder().upload(heads.data(), heads.size() * sizeof(int32_t), "the head indices");
}

// Records the scores kernel: the masked logits S[b, hh, i, j] (-inf where masked) for the query
// heads in `heads`.
void recordScores(Context& ctx, AttentionPlan plan, const TensorView& q, const TensorView& k,
                  const std::vector<int32_t>& heads, const Buffer& scores) {
  const uint64_t nHeads = heads.size();
  const uint64_t total = static_cast<uint64_t>(plan.batch) * nHeads * plan.lq * plan.lk;
  if (total > 0xffffffffull) throw Unsupported("argument 'q': more than 2^32 attention scores");
  pc::AttentionParams& p = plan.params;
  p.heads = static_cast<uint32_t>(nHeads);
  p.oStrideL = p.lk;
  p.oStrideH = p.lk * p.lq;
  p.oStrideB = static_cast<uint32_t>(p.oStrideH * nHeads);
  p.oOffset = 0;
  AttentionKernelShape shape;
  shape.workgroup = kNaiveWorkgroup;
  detail::recordOp(ctx,
                   {detail::shaders::attention_scores.of(plan.dtype), ATTN_SCORES_BINDING_COUNT,
                    detail::attentionConstants(plan, shape)},
                   {{ATTN_SCORES_BINDING_Q, q.buffer},
                    {ATTN_SCORES_BINDING_K, k.buffer},
                    {ATTN_SCORES_BINDING_S, &scores},
                    {ATTN_SCORES_BINDING_HEADS, &headIndexBuffer(ctx, heads)},
                    {ATTN_SCORES_BINDING_BIAS, plan.bias},
                    {ATTN_SCORES_BINDING_KEEP, plan.keep},
                    {ATTN_SCORES_BINDING_KEYLEN, plan.keyLengths},
                    {ATTN_SCORES_BINDING_ALIBI, plan.alibi}},
                   p, groupsFor(ctx.device(), total, kNaiveWorkgroup),
                   {"attention", {"q", "k", "v", "bias"}, ATTN_SCORES_BINDING_STATUS});
}

std::vector<int32_t> allHeads(int64_t n) {
  std::vector<int32_t> heads(static_cast<std::size_t>(n));
  std::iota(heads.begin(), heads.end(), 0);
  return heads;
}

}  // namespace

void attentionNaive(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v, const TensorView& out,
                    const AttentionOptions& options) {
  AttentionPlan plan = detail::planAttention(ctx, q, k, v, options);
  detail::setAttentionOutput(ctx, plan, out, "out");
  if (options.lse) throw InvalidArgument("lse", "the naive path does not produce the log-sum-exp");
  if (options.sinks) throw InvalidArgument("sinks", "the naive path has no attention sinks (use attention())");
  if (options.blockTable)
    throw Unsupported("argument 'blockTable': the naive path reads dense K/V only (attention() reads pages)");
  detail::requireDenseKvFormat(plan, "the naive path");
  detail::requireDenseBatch(plan, "the naive path");
  // The P V kernel loops over every key in one invocation.
  detail::requireLoopBudget(ctx, static_cast<uint64_t>(plan.lk),
                            "naive attention over " + std::to_string(plan.lk) + " keys (argument 'k')");
  const uint64_t rows = static_cast<uint64_t>(plan.batch * plan.headsQ * plan.lq);
  Batch batch(ctx);
  const Buffer& scores = scratch(ctx, rows * plan.lk, "naive attention's score matrix");
  recordScores(ctx, plan, q, k, allHeads(plan.headsQ), scores);
  const TensorView s{&scores, DType::F32, {static_cast<int64_t>(rows), plan.lk}, {plan.lk, 1}, 0};
  softmax(ctx, s, s);

  AttentionKernelShape shape;
  shape.workgroup = kNaiveWorkgroup;
  detail::recordOp(
      ctx,
      {detail::shaders::attention_pv.of(plan.dtype), ATTN_PV_BINDING_COUNT, detail::attentionConstants(plan, shape)},
      {{ATTN_PV_BINDING_P, &scores}, {ATTN_PV_BINDING_V, v.buffer}, {ATTN_PV_BINDING_O, out.buffer}}, plan.params,
      groupsFor(ctx.device(), rows * static_cast<uint64_t>((plan.dv + 3) / 4), kNaiveWorkgroup),
      {"attention", {"q", "k", "v", "bias"}, ATTN_PV_BINDING_STATUS});
  batch.submit();
}

Tensor attentionNaive(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                      const AttentionOptions& options) {
  return detail::allocatingCall(ctx, detail::attentionOutputShape(q, v), q.dtype,
                                [&](const TensorView& out) { attentionNaive(ctx, q, k, v, out, options); });
}

Tensor attentionWeights(Context& ctx, const TensorView& q, const TensorView& k, const std::vector<int64_t>& heads,
                        const AttentionOptions& options) {
  // K stands in for V: the plan checks q against k only through V's batch, heads and length, which
  // K has by construction, and nothing here reads V.
  AttentionPlan plan = detail::planAttention(ctx, q, k, k, options);
  if (options.lse) throw InvalidArgument("lse", "attentionWeights computes no log-sum-exp output");
  if (options.sinks) throw InvalidArgument("sinks", "attentionWeights has no attention sinks");
  if (options.blockTable) throw Unsupported("argument 'blockTable': attentionWeights reads dense K only");
  detail::requireDenseKvFormat(plan, "attentionWeights");
  detail::requireDenseBatch(plan, "attentionWeights");
  std::vector<int32_t> chosen;
  if (heads.empty()) chosen = allHeads(plan.headsQ);
  for (int64_t h : heads) {
    if (h < 0 || h >= plan.headsQ)
      throw InvalidArgument("heads", "head " + std::to_string(h) + " outside [0, " + std::to_string(plan.headsQ) + ")");
    chosen.push_back(static_cast<int32_t>(h));
  }
  const uint64_t count = static_cast<uint64_t>(plan.batch) * chosen.size() * plan.lq * plan.lk;
  if (count * 4 > ctx.info().maxStorageBufferRange)
    throw Unsupported("argument 'q': " + std::to_string(count) + " attention weights need " +
                      std::to_string(count * 4) + " bytes in one binding; " + ctx.info().name + " allows " +
                      std::to_string(ctx.info().maxStorageBufferRange));
  Tensor weights = ctx.tensor({plan.batch, static_cast<int64_t>(chosen.size()), plan.lq, plan.lk});
  // Logits (masked ones -inf) into the output, then the softmax row op in place: fully masked
  // rows become zeros.
  Batch batch(ctx);
  recordScores(ctx, plan, q, k, chosen, weights.buffer());
  const TensorView rows{&weights.buffer(),
                        DType::F32,
                        {static_cast<int64_t>(count / static_cast<uint64_t>(plan.lk)), plan.lk},
                        {plan.lk, 1},
                        0};
  softmax(ctx, rows, rows);
  batch.submit();
  return weights;
}

}  // namespace vkattn
