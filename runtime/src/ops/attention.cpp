// Fused attention: picks the kernel family (rows for CPU drivers, tiled for GPUs, coopmat when
// asked for on tensor-core devices, its emulated build when asked for anywhere), sizes it for the
// head dims and the device, checks the per-invocation loop count, splits long key ranges
// (split-K) and records one dispatch, or two with the split-K combine pass.
#include "vkattn/ops/attention.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "attention_plan.hpp"
#include "checks.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

using detail::AttentionKernelShape;
using detail::AttentionPlan;

std::optional<AttentionVariant> variantFromEnvironment() {
  const char* env = std::getenv("VKATTN_ATTENTION_VARIANT");
  if (!env || !*env) return std::nullopt;
  const std::string s(env);
  if (s == "rows" || s == "cpu") return AttentionVariant::Rows;
  if (s == "tiled" || s == "gpu") return AttentionVariant::Tiled;
  if (s == "coopmat") return AttentionVariant::Coopmat;
  if (s == "coopmat-emulated") return AttentionVariant::CoopmatEmulated;
  if (s == "auto") return std::nullopt;
  throw InvalidArgument("VKATTN_ATTENTION_VARIANT",
                        "'" + s + "', expected rows, tiled, coopmat, coopmat-emulated or auto");
}

// Rows kernel, measured on lavapipe (B=1, H=8, L=1024; build time of the pipeline in brackets):
// D=64: 4 rows per invocation ~16 GFLOP/s (2.5 s), 8 rows ~20 (9 s); D=128: 4 rows ~13 (12 s),
// 2 rows ~8 (4 s); D=256: 2 rows ~3 (15 s). Past 128 the build time is not worth it: 1 row. One key
// per step was faster than 2, 4 or 8 (the per-key rescale is cheap next to the loads), so blocks
// of 4 keys are used only where one key per step would pass the driver's loop limit.
AttentionKernelShape rowsShape(const Context& ctx, const AttentionPlan& plan) {
  AttentionKernelShape s;
  const uint32_t rowsForHeadDim = std::max(plan.dk, plan.dv) > 128 ? 1 : 4;
  s.rows = rowsForHeadDim;
  // One subgroup per workgroup (8 lanes on lavapipe): no barriers are needed, and small
  // workgroups spread short sequences over more threads.
  const DeviceInfo& info = ctx.info();
  s.workgroup = std::clamp<uint32_t>(info.subgroupSize, 8, 64);
  // Decode (a few query rows): a workgroup of lanes sharing 4 rows would mostly repeat one row,
  // so the lanes share the rows and split the keys instead. Their merge uses subgroup ops, so the
  // workgroup must be exactly one subgroup: only where the subgroup size is fixed.
  if (plan.lq <= 8 && info.subgroupArithmetic && info.minSubgroupSize == info.maxSubgroupSize &&
      info.subgroupSize >= 4 && info.subgroupSize <= 64) {
    s.laneKeys = true;
    s.workgroup = info.subgroupSize;
    s.rows = plan.lq <= 4 ? static_cast<uint32_t>(plan.lq) : 4;
    s.rows = std::min(s.rows, rowsForHeadDim);
  }
  const uint64_t keysPerLane =
      (static_cast<uint64_t>(plan.lk) + (s.laneKeys ? s.workgroup : 1) - 1) / (s.laneKeys ? s.workgroup : 1);
  const uint32_t limit = info.loopIterationLimit;
  s.keyBlock = limit != 0 && keysPerLane > limit - limit / 16 ? 4 : 1;
  return s;
}

// Tiled kernel: 64 rows per workgroup; the key tile is as large as shared memory allows, up to 16.
AttentionKernelShape tiledShape(const Context& ctx, const AttentionPlan& plan) {
  AttentionKernelShape s;
  s.workgroup = std::min<uint32_t>(64, ctx.info().maxWorkgroupInvocations);
  s.keyBlock = 16;
  const uint64_t bytesPerKey = static_cast<uint64_t>((plan.dk + 3) / 4 + (plan.dv + 3) / 4) * 16;  // vec4 words
  while (s.keyBlock > 4 && s.keyBlock * bytesPerKey > ctx.info().maxSharedMemoryBytes) s.keyBlock /= 2;
  if (s.keyBlock * bytesPerKey > ctx.info().maxSharedMemoryBytes)
    throw Unsupported("tiled attention with head dims " + std::to_string(plan.dk) + "/" + std::to_string(plan.dv) +
                      " needs more shared memory than " + ctx.info().name + " has");
  return s;
}

// The subgroup size the emulated fragments are compiled for (fragment.glsl's FRAG_LANES).
constexpr uint32_t kEmulatedFragmentLanes = 8;

uint64_t roundUp16(int64_t x) { return (static_cast<uint64_t>(x) + 15) / 16 * 16; }

// Fragment kernel (attention_coopmat.comp, hardware or emulated fragments): ROWS subgroups of 16
// query rows each per workgroup, KEY_BLOCK keys per tile and STAGES K/V buffers: the first of
// the configurations below, in order of expected speed, whose shared memory (the byte count of
// the shader's header) fits the device.
AttentionKernelShape fragmentShape(const Context& ctx, const AttentionPlan& plan, bool emulated) {
  const DeviceInfo& info = ctx.info();
  auto refuse = [&](const std::string& why) {
    return Unsupported(std::string(emulated ? "emulated " : "") + "cooperative-matrix attention " + why +
                       (emulated ? " (variant CoopmatEmulated)" : " (variant Coopmat)"));
  };
  uint32_t lanes = info.subgroupSize;  // the emulation's fixed size, or the hardware flavour's
  if (emulated) {
    if (info.minSubgroupSize != info.maxSubgroupSize || info.subgroupSize != kEmulatedFragmentLanes)
      throw refuse("is compiled for a fixed subgroup size of " + std::to_string(kEmulatedFragmentLanes) + "; " +
                   info.name + " has " + std::to_string(info.minSubgroupSize) + ".." +
                   std::to_string(info.maxSubgroupSize));
    if (!info.subgroupShuffle) throw refuse("needs subgroup shuffles; " + info.name + " lacks them");
    if (plan.dtype == DType::F16 && !info.shaderFloat16)
      throw refuse("with f16 storage needs shaderFloat16; " + info.name + " lacks it");
  }
  if (plan.dk < 16 || plan.dk > 256 || plan.dk % 8 != 0 || plan.dv < 16 || plan.dv > 256 || plan.dv % 8 != 0)
    throw refuse("takes head dims 16..256 in steps of 8, not " + std::to_string(plan.dk) + "/" +
                 std::to_string(plan.dv) + " (the rows and tiled variants take any up to 576)");
  if (!emulated) {
    // The KHR twin or the NV module, and the subgroup size it is sized for (required where it varies).
    const CoopmatChoice choice = coopmatChoiceFor(info, "attention_coopmat");
    if (choice.flavour == CoopmatFlavour::None) throw refuse("cannot run: " + choice.reason);
    if (plan.dtype != DType::F16) throw refuse("takes f16 q, k, v only");
    if (choice.subgroupSize < 16) throw refuse("needs subgroups of at least 16 lanes");
    lanes = choice.subgroupSize;
  }
  const uint64_t e = plan.dtype == DType::F16 ? 2 : 4, pad = 16 / e;
  const uint64_t dk = roundUp16(plan.dk), dv = roundUp16(plan.dv);
  struct Option {
    uint32_t rows, keys, stages;
  };
  constexpr Option kOptions[] = {{4, 64, 2}, {4, 32, 2}, {4, 64, 1}, {4, 32, 1}, {2, 64, 2}, {2, 32, 2}, {2, 32, 1},
                                 {4, 16, 2}, {4, 16, 1}, {2, 16, 2}, {2, 16, 1}, {1, 32, 1}, {1, 16, 1}};
  for (const Option& o : kOptions) {
    const uint64_t bytes = o.stages * o.keys * (dk + dv + 2 * pad) * e + 64 * o.rows * (o.keys + 4) +
                           16 * o.rows * (o.keys + pad) * e;
    if (bytes <= info.maxSharedMemoryBytes && o.rows * lanes <= info.maxWorkgroupInvocations) {
      AttentionKernelShape s;
      s.subgroup = lanes;
      s.workgroup = o.rows * lanes;
      s.rows = o.rows;
      s.keyBlock = o.keys;
      s.stages = o.stages;
      return s;
    }
  }
  throw refuse("with head dims " + std::to_string(plan.dk) + "/" + std::to_string(plan.dv) +
               " needs more shared memory than " + info.name + " has");
}

// Loop iterations of one fragment-kernel invocation that stay loops (the emulated build keeps
// its loops over fragments rolled): per tile the S and PV products and a rescale, plus Q and the
// output once.
uint64_t fragmentLoopIterations(const AttentionPlan& plan, const AttentionKernelShape& shape) {
  const uint64_t dk = roundUp16(plan.dk) / 16, dv = roundUp16(plan.dv) / 16, c = shape.keyBlock / 16;
  const uint64_t tiles = (static_cast<uint64_t>(plan.lk) + shape.keyBlock - 1) / shape.keyBlock;
  return tiles * (1 + c * (1 + dk) + c * (1 + dv) + dv) + dk + 2 * dv;
}

// Key splits for the rows kernel: enough that each split's key loop stays under the driver's
// limit, more when few workgroups would leave the device idle over many keys (decode).
uint32_t chooseSplits(const Context& ctx, const AttentionPlan& plan, const AttentionKernelShape& shape,
                      uint64_t workgroups, uint32_t requested) {
  const uint64_t keysPerStep = uint64_t{shape.keyBlock} * (shape.laneKeys ? shape.workgroup : 1);
  const uint64_t steps = (static_cast<uint64_t>(plan.lk) + keysPerStep - 1) / keysPerStep;
  const uint32_t limit = ctx.info().loopIterationLimit;
  const uint64_t budget = limit ? limit - limit / 16 : ~uint64_t{0};
  const uint64_t needed = (steps + budget - 1) / budget;
  uint64_t splits = requested;
  if (requested == 0) {
    constexpr uint64_t kBusyWorkgroups = 32, kMinKeysPerSplit = 1024;
    uint64_t wanted = workgroups < kBusyWorkgroups ? kBusyWorkgroups / workgroups : 1;
    wanted = std::min<uint64_t>(wanted, std::max<uint64_t>(1, static_cast<uint64_t>(plan.lk) / kMinKeysPerSplit));
    splits = std::max(needed, wanted);
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

}  // namespace

const char* toString(AttentionVariant variant) noexcept {
  switch (variant) {
    case AttentionVariant::Auto:
      return "auto";
    case AttentionVariant::Rows:
      return "rows";
    case AttentionVariant::Tiled:
      return "tiled";
    case AttentionVariant::Coopmat:
      return "coopmat";
    case AttentionVariant::CoopmatEmulated:
      return "coopmat-emulated";
  }
  return "?";
}

AttentionVariant resolveAttentionVariant(const Context& ctx, AttentionVariant requested) {
  if (requested != AttentionVariant::Auto) return requested;
  if (auto env = variantFromEnvironment()) return *env;
  return ctx.profile() == KernelProfile::CpuDriver ? AttentionVariant::Rows : AttentionVariant::Tiled;
}

AttentionVariant attentionVariantFor(const Context& ctx, AttentionVariant requested, int64_t queries) {
  // Decode (Lq <= 8): the tiled kernel would leave most of each 64-row workgroup idle; the rows
  // kernel's decode mode (lanes split the keys, split-K over workgroups) suits every device.
  if (requested == AttentionVariant::Auto && !variantFromEnvironment() && queries <= 8) return AttentionVariant::Rows;
  return resolveAttentionVariant(ctx, requested);
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
  const AttentionVariant variant = attentionVariantFor(ctx, options.variant, plan.lq);
  const bool rows = variant == AttentionVariant::Rows;
  const bool emulated = variant == AttentionVariant::CoopmatEmulated;
  const bool coopmat = variant == AttentionVariant::Coopmat || emulated;
  if (!rows && options.keySplits > 1) throw InvalidArgument("keySplits", "only the rows variant splits keys");
  AttentionKernelShape shape =
      rows ? rowsShape(ctx, plan) : (coopmat ? fragmentShape(ctx, plan, emulated) : tiledShape(ctx, plan));
  shape.writeLse = options.lse.has_value();
  // One workgroup per (batch, head, block of query rows), times the key splits.
  const uint64_t rowsPerGroup = rows      ? uint64_t{shape.rows} * (shape.laneKeys ? 1 : shape.workgroup)
                                : coopmat ? uint64_t{16} * shape.rows
                                          : uint64_t{shape.workgroup};
  const uint64_t workgroups = static_cast<uint64_t>(plan.batch * plan.headsQ) *
                              ((static_cast<uint64_t>(plan.lq) + rowsPerGroup - 1) / rowsPerGroup);
  const uint32_t splits = rows ? chooseSplits(ctx, plan, shape, workgroups, options.keySplits) : 1;
  shape.split = splits > 1;
  // Loops left after unrolling: rows runs one iteration per KEY_BLOCK keys of its split; tiled one
  // per tile plus one per 4 keys inside it.
  const uint64_t keysPerSplit = (static_cast<uint64_t>(plan.lk) + splits - 1) / splits;
  const uint64_t keysPerStep = uint64_t{shape.keyBlock} * (shape.laneKeys ? shape.workgroup : 1);
  const uint64_t steps = (keysPerSplit + keysPerStep - 1) / keysPerStep + (shape.split ? 1 : 0);
  detail::requireLoopBudget(ctx,
                            rows      ? steps
                            : coopmat ? fragmentLoopIterations(plan, shape)
                                      : steps * (1 + shape.keyBlock / 4),
                            "attention over " + std::to_string(plan.lk) + " keys (argument 'k')");

  const CoopmatChoice coopmatChoice =
      variant == AttentionVariant::Coopmat ? coopmatChoiceFor(ctx.info(), "attention_coopmat") : CoopmatChoice{};
  const std::string shader = rows       ? "attention_rows"
                             : emulated ? "attention_coopmat_emu"
                             : coopmat  ? coopmatShader("attention_coopmat", coopmatChoice.flavour)
                                        : "attention_tiled";
  const Pipeline& pipeline =
      ctx.pipelines().get({detail::variantName(shader, plan.dtype), ATTN_BINDING_COUNT, sizeof(pc::AttentionParams),
                           detail::attentionConstants(plan, shape),
                           coopmatChoice.requireSubgroupSize ? coopmatChoice.subgroupSize : 0});
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
    partials = &rec.keepAlive(Buffer(ctx.device(), static_cast<std::size_t>(floats * 4)));
  }
  StatusSlot status = rec.statusSlot("attention", {"q", "k", "v", "bias"});
  plan.params.statusSlot = status.slot;
  rec.dispatch(pipeline,
               {{ATTN_BINDING_Q, q.buffer},
                {ATTN_BINDING_K, k.buffer},
                {ATTN_BINDING_V, v.buffer},
                {ATTN_BINDING_O, out.buffer},
                {ATTN_BINDING_LSE, partials ? partials : lseBuffer},  // split-K: the partial records
                {ATTN_BINDING_BIAS, plan.bias},
                {ATTN_BINDING_KEEP, plan.keep},
                {ATTN_BINDING_KEYLEN, plan.keyLengths},
                {ATTN_BINDING_STATUS, status.buffer},
                {ATTN_BINDING_SINKS, plan.sinks},
                {ATTN_BINDING_ALIBI, plan.alibi}},
               plan.params, groups);
  if (shape.split) {
    AttentionKernelShape combine;
    combine.workgroup = 64;
    combine.writeLse = shape.writeLse;
    combine.splits = splits;
    const Pipeline& merge =
        ctx.pipelines().get({detail::variantName("attention_combine", plan.dtype), ATTN_COMBINE_BINDING_COUNT,
                             sizeof(pc::AttentionParams),
                             detail::attentionConstants(plan, combine)});
    rec.dispatch(merge,
                 {{ATTN_COMBINE_BINDING_PARTIALS, partials},
                  {ATTN_COMBINE_BINDING_O, out.buffer},
                  {ATTN_COMBINE_BINDING_LSE, options.lse ? options.lse->buffer : partials},
                  {ATTN_COMBINE_BINDING_SINKS, plan.sinks}},
                 plan.params,
                 groupsFor(ctx.device(), static_cast<uint64_t>(plan.batch * plan.headsQ * plan.lq), combine.workgroup));
  }
  ctx.flush();
}

Tensor attention(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                 const AttentionOptions& options) {
  Tensor out = detail::attentionOutput(ctx, q, v);
  attention(ctx, q, k, v, out, options);
  return out;
}

}  // namespace vkattn
