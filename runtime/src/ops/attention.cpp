// Fused attention: picks the kernel (rows for CPU drivers; on GPUs decode for few query rows,
// coopmat on matrix units, tiled otherwise; the others when asked for), reads what it takes, its
// module and shape from the table of kernels (attention_kernels), checks the per-invocation loop
// count, splits long key ranges (split-K) and records one dispatch, or two with the split-K
// combine pass.
#include "vkattn/ops/attention.hpp"

#include <shared_layout.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <span>
#include <string>

#include "attention_kernels.hpp"
#include "attention_plan.hpp"
#include "attention_shapes.hpp"
#include "checks.hpp"
#include "op_dispatch.hpp"
#include "op_row_definition.hpp"
#include "variant_from_environment.hpp"
#include "vkattn/core/checked_size.hpp"
#include "vkattn/core/device_parallelism.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

using detail::AttentionKernelShape;
using detail::AttentionPlan;

std::optional<AttentionVariant> variantFromEnvironment() {
  return detail::variantFromEnvironment("VKATTN_ATTENTION_VARIANT", attentionVariantNamed, kAttentionVariantNames,
                                        AttentionVariant::Auto);
}

// Whether the fragment kernel on the matrix units takes these inputs (f16, head dims 16..256 in
// steps of 8, dense K/V of q's dtype, one sequence per batch entry): where Auto picks it on GPUs.
bool fragmentKernelTakes(const AttentionPlan& plan) {
  auto dim = [](int64_t d) { return d >= 16 && d <= 256 && d % 8 == 0; };
  return plan.dtype == DType::F16 && plan.kvDtype == plan.dtype && !plan.pageSize && !plan.varlen && dim(plan.dk) &&
         dim(plan.dv);
}

// Key splits for the rows and fragment kernels: enough that each split's loop stays under the
// driver's limit, more when few workgroups would leave the device idle over many keys (decode):
// up to busyWorkgroups in all, each split covering at least minKeysPerSplit keys.
uint32_t chooseSplits(const Context& ctx, const AttentionPlan& plan, const detail::KeyLoop& loop, uint64_t workgroups,
                      uint32_t requested) {
  const uint64_t steps = (static_cast<uint64_t>(plan.lk) + loop.keysPerStep - 1) / loop.keysPerStep;
  const uint32_t limit = ctx.info().loopIterationLimit;
  const uint64_t budget = limit ? limit - limit / 16 : ~uint64_t{0};
  const uint64_t stepBudget = budget > loop.fixed ? std::max<uint64_t>(1, (budget - loop.fixed) / loop.perStep) : 1;
  const uint64_t needed = (steps + stepBudget - 1) / stepBudget;
  // The splits' combine (attention_combine.comp) reduces each row's records across a subgroup.
  const bool canCombine = ctx.info().subgroupArithmetic;
  if (!canCombine && std::max<uint64_t>(needed, requested) > 1)
    throw Unsupported("attention over " + std::to_string(plan.lk) + " keys (argument 'k') needs " +
                      std::to_string(std::max<uint64_t>(needed, requested)) +
                      " key splits (argument 'keySplits'), whose combine needs subgroup arithmetic in compute "
                      "shaders, which " +
                      ctx.info().name + " lacks");
  uint64_t splits = requested;
  if (requested == 0) {
    const uint64_t busy = busyWorkgroups(ctx.info());
    uint64_t wanted = workgroups < busy ? busy / workgroups : 1;
    wanted =
        std::min<uint64_t>(wanted, std::max<uint64_t>(1, static_cast<uint64_t>(plan.lk) / minKeysPerSplit(ctx.info())));
    splits = canCombine ? std::max(needed, wanted) : 1;  // without the combine, needed is 1 here
  } else if (requested < needed) {
    throw InvalidArgument("keySplits", std::to_string(requested) + " splits leave " +
                                           std::to_string((steps + requested - 1) / requested) +
                                           " key steps per invocation; this device needs at least " +
                                           std::to_string(needed) + " splits");
  }
  if (splits > ctx.info().maxWorkgroupCount[2] || splits > 4096)
    throw Unsupported("attention over " + std::to_string(plan.lk) + " keys (argument 'k') needs " +
                      std::to_string(splits) + " key splits, more than " + ctx.info().name + " can dispatch");
  return static_cast<uint32_t>(splits);
}

// A multiplier coprime to n near n / golden ratio: g -> (g * m) mod n is then a permutation whose
// contiguous ranges spread evenly over 0 .. n - 1.
uint32_t spreadMultiplier(uint64_t n) {
  if (n < 3) return 1;
  auto m = static_cast<uint64_t>(static_cast<double>(n) * 0.6180339887498949);
  while (std::gcd(m, n) != 1) ++m;
  return static_cast<uint32_t>(m);
}

}  // namespace

namespace {

constexpr detail::VariantName<AttentionVariant> kAttentionVariants[] = {
    {"auto", AttentionVariant::Auto},
    {"rows", AttentionVariant::Rows},
    {"cpu", AttentionVariant::Rows},
    {"tiled", AttentionVariant::Tiled},
    {"gpu", AttentionVariant::Tiled},
    {"coopmat", AttentionVariant::Coopmat},
    {"coopmat-emulated", AttentionVariant::CoopmatEmulated},
    {"coopmat2", AttentionVariant::Coopmat2},
    {"coopmat2-wg", AttentionVariant::Coopmat2Workgroup},
    {"decode", AttentionVariant::Decode}};

}  // namespace

std::optional<AttentionVariant> attentionVariantNamed(std::string_view s) noexcept {
  return detail::variantNamed(kAttentionVariants, s);
}

const char* toString(AttentionVariant variant) noexcept {
  return detail::variantName(kAttentionVariants, variant);
}

AttentionVariant resolveAttentionVariant(const Context& ctx, AttentionVariant requested) {
  if (requested != AttentionVariant::Auto) return requested;
  if (auto env = variantFromEnvironment()) return *env;
  return ctx.profile() == KernelProfile::CpuDriver ? AttentionVariant::Rows : AttentionVariant::Tiled;
}

namespace {

// The kernel attention() runs: the one asked for; else the environment's; else by device class
// and inputs.
AttentionVariant chooseAttentionVariant(const Context& ctx, const AttentionPlan& plan, AttentionVariant requested) {
  if (requested != AttentionVariant::Auto) return requested;
  // K/V in bf16, Q8_0 or Q4_0 and packed batches are read by the rows kernel only, paged caches by
  // the rows and decode kernels: Auto picks one of those for any query count.
  if (plan.kvDtype != plan.dtype || plan.varlen) return AttentionVariant::Rows;
  const std::optional<AttentionVariant> env = variantFromEnvironment();
  if (env && (!plan.pageSize || *env == AttentionVariant::Rows || *env == AttentionVariant::Decode)) return *env;
  const bool gpu = ctx.profile() != KernelProfile::CpuDriver;
  // Decode (Lq <= 8): the tiled and fragment kernels would leave most of each workgroup's rows
  // idle. GPUs take the decode kernel (lanes split each key's head dim, coalesced 16-byte reads)
  // where it takes the inputs; CPU drivers, and inputs it refuses, the rows kernel's decode mode.
  if ((plan.lq <= 8 || plan.pageSize) && gpu && detail::decodeRefusal(ctx, plan).empty())
    return AttentionVariant::Decode;
  if (plan.lq <= 8 || plan.pageSize || !gpu) return AttentionVariant::Rows;
  // GPUs with matrix units: the fragment kernel wherever it takes the inputs.
  return ctx.info().cooperativeMatrixF16 && fragmentKernelTakes(plan) ? AttentionVariant::Coopmat
                                                                      : AttentionVariant::Tiled;
}

}  // namespace

AttentionVariant attentionVariantFor(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                                     const AttentionOptions& options) {
  return chooseAttentionVariant(ctx, detail::planAttention(ctx, q, k, v, options), options.variant);
}

void attention(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v, const TensorView& out,
               const AttentionOptions& options) {
  AttentionPlan plan = detail::planAttention(ctx, q, k, v, options);
  detail::setAttentionOutput(ctx, plan, out, "out");
  const Buffer* lseBuffer = q.buffer;
  if (options.lse) {
    detail::checkLse(plan, *options.lse);
    lseBuffer = options.lse->buffer;
  }
  const AttentionVariant variant = chooseAttentionVariant(ctx, plan, options.variant);
  const detail::AttentionKernel& kernel = detail::attentionKernel(variant);
  const std::string path = std::string("the ") + toString(variant) + " variant";
  if (plan.pageSize && !kernel.readsPagedCache)
    throw Unsupported("argument 'blockTable': a paged K/V cache is read by the rows and decode kernels only, not " +
                      path);
  if (!kernel.readsStorageFormats) {
    detail::requireDenseKvFormat(plan, path);
    detail::requireDenseBatch(plan, path);
  }
  if (!kernel.splitsKeys && options.keySplits > 1)
    throw InvalidArgument("keySplits", "the " + std::string(toString(variant)) +
                                           " variant does not split keys (rows, decode and the coopmat kernels do)");
  AttentionKernelShape shape = kernel.shape(ctx, plan);
  shape.writeLse = options.lse.has_value();
  // One workgroup per (batch, head, block of query rows) — for kernels that pack a KV head's query
  // heads per (batch, KV head, block of the group's packed rows) — times the key splits.
  const bool packsHeads = kernel.packsHeads(shape);
  const uint64_t rowsPerGroup = kernel.rowsPerWorkgroup(shape);
  const uint64_t owners = static_cast<uint64_t>(plan.batch * (packsHeads ? plan.headsKv : plan.headsQ));
  const uint64_t ownerRows = static_cast<uint64_t>(plan.lq * (packsHeads ? plan.headsQ / plan.headsKv : 1));
  const uint64_t workgroups = owners * ((ownerRows + rowsPerGroup - 1) / rowsPerGroup);
  const detail::KeyLoop loop = kernel.keyLoop(plan, shape);
  const uint32_t splits = kernel.splitsKeys ? chooseSplits(ctx, plan, loop, workgroups, options.keySplits) : 1;
  shape.split = splits > 1;
  const uint64_t keysPerSplit = (static_cast<uint64_t>(plan.lk) + splits - 1) / splits;
  detail::requireLoopBudget(ctx, loop.iterations(keysPerSplit),
                            "attention over " + std::to_string(plan.lk) + " keys (argument 'k')");
  const detail::OpKernel op{kernel.module(ctx, plan), ATTN_BINDING_COUNT, detail::attentionConstants(plan, shape),
                            shape.requiredSubgroupSize};
  GroupCount groups = groupsFor(ctx.device(), workgroups, 1);
  groups.z = splits;
  Recorder& rec = ctx.recorder();
  const Buffer* partials = nullptr;
  if (shape.split) {
    const uint64_t floats = uint64_t{splits} * static_cast<uint64_t>(plan.batch * plan.headsQ * plan.lq) *
                            static_cast<uint64_t>(plan.dv + 2);
    if (floats * 4 > ctx.info().maxStorageBufferRange || floats > 0xffffffffull)
      throw Unsupported("attention's " + std::to_string(splits) + " key splits need " + std::to_string(floats * 4) +
                        " bytes of partial results, past " + ctx.info().name + "'s storage buffer limit");
    partials = &rec.scratch(static_cast<std::size_t>(floats * 4), "attention's split-K partial records");
  }
  if (plan.varlen) {
    // The sequences' offsets, for the kernel and its combine, then the multiplier that spreads
    // the sequences' groups (of different lengths) over the workgroups, which CPU drivers hand to
    // their threads in contiguous ranges.
    plan.sequences.push_back(static_cast<int32_t>(spreadMultiplier(workgroups)));
    const std::size_t bytes = plan.sequences.size() * sizeof(int32_t);
    plan.seqs = &rec.upload(plan.sequences.data(), bytes, "the sequences' offsets");
  }
  detail::recordOp(ctx, op,
                   {{ATTN_BINDING_Q, q.buffer},
                    {ATTN_BINDING_K, k.buffer},
                    {ATTN_BINDING_V, v.buffer},
                    {ATTN_BINDING_O, out.buffer},
                    {ATTN_BINDING_LSE, partials ? partials : lseBuffer},  // split-K: the partial records
                    {ATTN_BINDING_BIAS, plan.bias},
                    {ATTN_BINDING_KEEP, plan.keep},
                    {ATTN_BINDING_KEYLEN, plan.keyLengths},
                    {ATTN_BINDING_SINKS, plan.sinks},
                    {ATTN_BINDING_ALIBI, plan.alibi},
                    {ATTN_BINDING_PAGES, plan.pages},
                    {ATTN_BINDING_SEQS, plan.seqs}},
                   plan.params, groups, {"attention", {"q", "k", "v", "bias"}, ATTN_BINDING_STATUS});
  if (shape.split) {
    AttentionKernelShape combine;  // one subgroup per row
    combine.workgroup = std::max(64u, ctx.info().maxSubgroupSize);
    combine.rows = combine.workgroup / std::max(1u, ctx.info().maxSubgroupSize);
    combine.writeLse = shape.writeLse;
    pc::AttentionParams combineParams = plan.params;
    combineParams.lk = splits;  // the combine's split count, a push constant (attention_combine.comp)
    detail::recordOp(ctx,
                     {detail::shaders::attention_combine.of(plan.dtype), ATTN_COMBINE_BINDING_COUNT,
                      detail::attentionConstants(plan, combine)},
                     {{ATTN_COMBINE_BINDING_PARTIALS, partials},
                      {ATTN_COMBINE_BINDING_O, out.buffer},
                      {ATTN_COMBINE_BINDING_LSE, options.lse ? options.lse->buffer : partials},
                      {ATTN_COMBINE_BINDING_SINKS, plan.sinks},
                      {ATTN_COMBINE_BINDING_SEQS, plan.seqs}},
                     combineParams,
                     groupsFor(ctx.device(), static_cast<uint64_t>(plan.batch * plan.headsQ * plan.lq), combine.rows));
  }
  ctx.flush();
}

Tensor attention(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                 const AttentionOptions& options) {
  return detail::allocatingCall(ctx, detail::attentionOutputShape(q, v), q.dtype,
                                [&](const TensorView& out) { attention(ctx, q, k, v, out, options); });
}

namespace detail {
namespace {

// Self-attention of `heads` query heads over kvHeads K/V heads, lq query rows against lk keys.
CatalogShape attentionShape(std::string label, DType dtype, int64_t dim, bool causal, int64_t heads, int64_t kvHeads,
                            int64_t lq, int64_t lk, AttentionVariant variant = AttentionVariant::Auto) {
  return {std::move(label), [=](Context& ctx) {
            Tensor q = ctx.tensor({1, heads, lq, dim}, dtype), k = ctx.tensor({1, kvHeads, lk, dim}, dtype),
                   v = ctx.tensor({1, kvHeads, lk, dim}, dtype), out = ctx.tensor({1, heads, lq, dim}, dtype);
            attention(ctx, q, k, v, out,
                      {.causal = causal, .alignment = MaskAlignment::BottomRight, .variant = variant});
          }};
}

}  // namespace

// The output O. f16: P is rounded to half before the P V product, as in FlashAttention.
VKATTN_OP_ROW(attention) {
  OpRow row{.name = "attention", .f32 = {2e-5, 1e-4}, .f16 = {2e-3, 5e-3}};
  // Prefill as Auto runs it: the cooperative-matrix kernel for f16 where there are matrix units,
  // the tiled kernel otherwise.
  for (int64_t dim : {64, 80, 96, 128, 160, 192, 256})
    for (bool causal : {false, true})
      row.catalog.push_back(attentionShape("attention f16 D" + std::to_string(dim) + (causal ? " causal" : ""),
                                           DType::F16, dim, causal, 8, 8, 1024, 1024));
  for (DType dtype : {DType::F32, DType::F16})
    row.catalog.push_back(attentionShape(std::string("attention tiled ") + toString(dtype) + " D128", dtype, 128, false,
                                         8, 8, 1024, 1024, AttentionVariant::Tiled));
  row.catalog.push_back(attentionShape("attention coopmat2 f16 D128", DType::F16, 128, false, 8, 8, 1024, 1024,
                                       AttentionVariant::Coopmat2));
  row.catalog.push_back(attentionShape("attention coopmat2-wg f16 D128", DType::F16, 128, false, 8, 8, 1024, 1024,
                                       AttentionVariant::Coopmat2Workgroup));
  // Decode: one query row of 32 heads against 8 K/V heads (GQA 4:1), split over the keys and
  // combined.
  row.catalog.push_back(attentionShape("attention decode f16 D128 GQA 4:1", DType::F16, 128, true, 32, 8, 1, 4096));
  return row;
}

}  // namespace detail

}  // namespace vkattn
