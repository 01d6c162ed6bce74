// Fused attention: picks the kernel family (rows for CPU drivers, tiled for GPUs, coopmat when
// asked for on tensor-core devices, its emulated build when asked for anywhere), sizes it for the
// head dims and the device, checks the per-invocation loop count, splits long key ranges
// (split-K) and records one dispatch, or two with the split-K combine pass.
#include "vkattn/ops/attention.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <span>
#include <string>

#include <shared_layout.h>

#include "attention_plan.hpp"
#include "checks.hpp"
#include "variant_from_environment.hpp"
#include "vkattn/core/checked_size.hpp"
#include "vkattn/core/coopmat_selection.hpp"
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

// Rows kernel, measured on lavapipe (B=1, H=8, L=1024; build time of the pipeline in brackets):
// D=64: 4 rows per invocation and 1 key per step 18.9 GFLOP/s at best of 5 runs (5 s), 8 rows 21.4,
// 8 rows and 2 keys 23.6 (10 s), 16 rows 24.7 (longer still); D=128: 4 rows ~13 (12 s), 2 rows ~8
// (4 s); D=256: 2 rows ~3 (15 s). Past 128 the build time is not worth it: 1 row.
// The 8 x 2 block pays for its longer build only over many key/query pairs, so it is kept for CPU
// drivers (a GPU would spill its 256 floats per lane) and prefill-sized problems; elsewhere 1 key
// per step, or blocks of 4 where that would pass the driver's loop limit.
// Small problems take 1 row: the build time grows with ROWS * D (lavapipe unrolls every row's q
// loads and o stores lane by lane), and below 2^16 pairs a call takes milliseconds with either.
// Measured, `vkattn bench attention --heads 2 --queries 33 --len 47 --dim 64`, whole process from
// empty caches: Mesa 25.0.7 4 rows 24.6 s, 1 row 5.3 s; Mesa 22.3.6 5.2 s and 2.0 s. At 2^19
// pairs (H8, L256, D64) 4 rows ran at 11.2-11.8 GFLOP/s and 1 row at 3.7-3.9 (Mesa 22.3.6).
constexpr uint64_t kLargeBlockPairs = uint64_t{1} << 23;  // B * Hq * Lq * Lk: 8 heads of 1024 x 1024
constexpr uint64_t kSmallProblemPairs = uint64_t{1} << 16;

AttentionKernelShape rowsShape(const Context& ctx, const AttentionPlan& plan) {
  AttentionKernelShape s;
  const auto pairs = static_cast<uint64_t>(checkedElementCount({plan.batch, plan.headsQ, plan.lq, plan.lk}, "q"));
  const uint32_t rowsForHeadDim = std::max(plan.dk, plan.dv) > 128 ? 1 : 4;
  const bool largeBlock = ctx.profile() == KernelProfile::CpuDriver && std::max(plan.dk, plan.dv) <= 64 &&
                          pairs >= kLargeBlockPairs;
  s.rows = largeBlock ? 8 : pairs < kSmallProblemPairs ? 1 : rowsForHeadDim;
  // One subgroup per workgroup (8 lanes on lavapipe): no barriers are needed, and small
  // workgroups spread short sequences over more threads.
  const DeviceInfo& info = ctx.info();
  s.workgroup = std::clamp<uint32_t>(info.subgroupSize, 8, 64);
  // Decode (a few query rows): a workgroup of lanes sharing 4 rows would mostly repeat one row,
  // so the lanes share the rows and split the keys instead. Their merge uses subgroup ops, so the
  // workgroup must be exactly one subgroup: a fixed size, or one the pipeline requires. The rows
  // are packed across the query heads that share a KV head (GQA), so K/V is read once per group.
  const LaneSplitSubgroup lanes = laneSplitSubgroup(info);
  if (plan.lq <= 8 && lanes.size) {
    s.laneKeys = true;
    s.workgroup = lanes.size;
    s.requiredSubgroupSize = lanes.required ? lanes.size : 0;
    const uint64_t packedRows = static_cast<uint64_t>(plan.lq * (plan.headsQ / plan.headsKv));
    s.rows = static_cast<uint32_t>(std::min<uint64_t>({packedRows, 4, rowsForHeadDim}));
  }
  const uint64_t keysPerLane =
      (static_cast<uint64_t>(plan.lk) + (s.laneKeys ? s.workgroup : 1) - 1) / (s.laneKeys ? s.workgroup : 1);
  const uint32_t limit = info.loopIterationLimit;
  s.keyBlock = largeBlock && !s.laneKeys ? 2 : 1;
  if (limit != 0 && (keysPerLane + s.keyBlock - 1) / s.keyBlock > limit - limit / 16) s.keyBlock = 4;
  return s;
}

// Tiled kernel: the head dim split over ROW_LANES lanes per query row so that a lane holds at most
// 8 vec4 words of q and 8 of the output (64 floats: 1 lane per row up to D = 32, 2 at 64, 4 at
// 128, 8 at 256), where the device has shuffles and subgroups of at least that many lanes, with a
// lane count that divides both head dims in vec4 words; 64 rows per workgroup, fewer where that
// would pass 256 invocations; the key tile as large as shared memory allows, up to 16.
AttentionKernelShape tiledShape(const Context& ctx, const AttentionPlan& plan) {
  const DeviceInfo& info = ctx.info();
  AttentionKernelShape s;
  const uint64_t dk4 = static_cast<uint64_t>((plan.dk + 3) / 4), dv4 = static_cast<uint64_t>((plan.dv + 3) / 4);
  const uint64_t words = std::max(dk4, dv4);
  if (info.subgroupShuffle)
    while (s.rowLanes < 8 && words > 8 * uint64_t{s.rowLanes} && 2 * s.rowLanes <= info.minSubgroupSize &&
           dk4 % (2 * s.rowLanes) == 0 && dv4 % (2 * s.rowLanes) == 0)
      s.rowLanes *= 2;
  const uint32_t invocations = std::min<uint32_t>(256, info.maxWorkgroupInvocations);
  s.workgroup = std::min<uint32_t>(64, invocations / s.rowLanes) * s.rowLanes;
  s.keyBlock = 16;
  const uint64_t bytesPerKey = static_cast<uint64_t>((plan.dk + 3) / 4 + (plan.dv + 3) / 4) * 16;  // vec4 words
  while (s.keyBlock > 4 && s.keyBlock * bytesPerKey > ctx.info().maxSharedMemoryBytes) s.keyBlock /= 2;
  if (s.keyBlock * bytesPerKey > ctx.info().maxSharedMemoryBytes)
    throw Unsupported("tiled attention with head dims " + std::to_string(plan.dk) + "/" + std::to_string(plan.dv) +
                      " needs more shared memory than " + ctx.info().name + " has");
  return s;
}

// The subgroup size and fragment shape the emulated fragments are compiled for (fragment.glsl).
constexpr uint32_t kEmulatedFragmentLanes = 8;
constexpr uint32_t kEmulatedFragment = 16;

uint64_t roundUp(int64_t x, uint64_t to) { return (static_cast<uint64_t>(x) + to - 1) / to * to; }

// Fragment kernel (attention_coopmat.comp, hardware or emulated fragments): ROWS subgroups of FM
// query rows each per workgroup, KEY_BLOCK keys per tile and STAGES K/V buffers: the first of
// the configurations below, in order of expected speed, whose shared memory (shared_layout.h's
// count, the one the shader declares its arrays with) fits the device.
AttentionKernelShape fragmentShape(const Context& ctx, const AttentionPlan& plan, bool emulated) {
  const DeviceInfo& info = ctx.info();
  auto refuse = [&](const std::string& why) {
    return Unsupported(std::string(emulated ? "emulated " : "") + "cooperative-matrix attention " + why +
                       (emulated ? " (variant CoopmatEmulated)" : " (variant Coopmat)"));
  };
  uint32_t lanes = info.subgroupSize;  // the emulation's fixed size, or the hardware flavour's
  uint32_t fm = kEmulatedFragment, fn = kEmulatedFragment, fk = kEmulatedFragment;
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
    // The KHR or NV module, its fragment shape and the subgroup size it is sized for.
    const CoopmatChoice choice = coopmatChoiceFor(info);
    if (choice.flavour == CoopmatFlavour::None) throw refuse("cannot run: " + choice.reason);
    if (plan.dtype != DType::F16) throw refuse("takes f16 q, k, v only");
    lanes = choice.subgroupSize;
    fm = choice.m;
    fn = choice.n;
    fk = choice.k;
  }
  const uint64_t e = plan.dtype == DType::F16 ? 2 : 4, pad = 16 / e;
  const uint64_t dk = roundUp(plan.dk, fk), dv = roundUp(plan.dv, fn);
  struct Option {
    uint32_t rows, keys, stages;
  };
  constexpr Option kOptions[] = {{4, 64, 2}, {4, 32, 2}, {4, 64, 1}, {4, 32, 1}, {2, 64, 2}, {2, 32, 2}, {2, 32, 1},
                                 {4, 16, 2}, {4, 16, 1}, {2, 16, 2}, {2, 16, 1}, {1, 32, 1}, {1, 16, 1}};
  uint64_t smallest = ~uint64_t{0};  // the least shared memory any configuration needs
  for (const Option& o : kOptions) {
    const uint64_t bytes = ATTN_COOPMAT_SHARED_BYTES(uint64_t{o.stages}, uint64_t{o.keys}, dk, dv, pad, e,
                                                     uint64_t{fm}, uint64_t{o.rows});
    // Tiles hold whole fragments: keys in multiples of FN (S) and of FK (P).
    if (o.keys % fn != 0 || o.keys % fk != 0) continue;
    smallest = std::min(smallest, bytes);
    if (bytes <= info.maxSharedMemoryBytes && o.rows * lanes <= info.maxWorkgroupInvocations) {
      AttentionKernelShape s;
      s.subgroup = lanes;
      s.fragM = fm;
      s.fragN = fn;
      s.fragK = fk;
      // lavapipe runs a workgroup's subgroups as one loop and gave wrong results when only some of
      // them reached the subgroup barriers of a skipped tile or of the rescale (README, Attention).
      s.uniformTiles = emulated || info.defaultProfile() == KernelProfile::CpuDriver;
      s.workgroup = o.rows * lanes;
      s.rows = o.rows;
      s.keyBlock = o.keys;
      s.stages = o.stages;
      return s;
    }
  }
  throw refuse("with head dims " + std::to_string(plan.dk) + "/" + std::to_string(plan.dv) + " needs at least " +
               std::to_string(smallest) + " bytes of shared memory; " + info.name + " has " +
               std::to_string(info.maxSharedMemoryBytes));
}

// Cooperative-matrix-2 kernel (attention_coopmat2.comp): ROWS subgroups of FM query rows each,
// KEY_BLOCK keys per tile and STAGES K/V buffers, the first configuration below that fits the
// device's shared memory (shared_layout.h's count) and its largest flexible dimension. FM is the
// device's row granularity, the only row count verified (README, Attention: coopmat2). CPU
// drivers take small tiles: their build time grows with the elements per lane (FM x KEY_BLOCK /
// lanes), as the per-element operations are unrolled element by element.
AttentionKernelShape coopmat2Shape(const Context& ctx, const AttentionPlan& plan) {
  const DeviceInfo& info = ctx.info();
  auto refuse = [&](const std::string& why) {
    return Unsupported("cooperative-matrix-2 attention " + why + " (variant Coopmat2)");
  };
  const Coopmat2Choice choice = coopmat2ChoiceFor(info);
  if (!choice.usable) throw refuse("cannot run: " + choice.reason);
  if (plan.dtype != DType::F16) throw refuse("takes f16 q, k, v only");
  if (plan.dk < 8 || plan.dk > 256 || plan.dk % 8 != 0 || plan.dv < 8 || plan.dv > 256 || plan.dv % 8 != 0)
    throw refuse("takes head dims 8..256 in steps of 8, not " + std::to_string(plan.dk) + "/" +
                 std::to_string(plan.dv) + " (the rows and tiled variants take any up to 576)");
  const uint64_t dk = roundUp(plan.dk, choice.pad), dv = roundUp(plan.dv, choice.pad);
  struct Option {
    uint32_t rows, keys, stages;
  };
  constexpr Option kGpuOptions[] = {{4, 64, 2}, {4, 32, 2}, {2, 64, 2}, {2, 32, 2}, {4, 32, 1}, {2, 32, 1},
                                    {1, 32, 2}, {1, 32, 1}, {2, 16, 1}, {1, 16, 1}, {1, 8, 1}};
  constexpr Option kCpuOptions[] = {{2, 16, 1}, {1, 16, 1}, {1, 8, 1}};
  const bool cpu = info.defaultProfile() == KernelProfile::CpuDriver;
  const std::span<const Option> options = cpu ? std::span<const Option>(kCpuOptions) : kGpuOptions;
  const uint32_t fm = choice.rows;
  uint64_t smallest = ~uint64_t{0};  // the least shared memory any configuration needs
  for (const Option& o : options) {
    const uint64_t bytes = ATTN_COOPMAT2_SHARED_BYTES(uint64_t{o.stages}, uint64_t{o.keys}, dk, dv, uint64_t{8},
                                                      uint64_t{2}, uint64_t{fm}, uint64_t{o.rows});
    if (o.keys % choice.pad != 0 || std::max<uint64_t>({dk, dv, o.keys}) > choice.maxDimension) continue;
    smallest = std::min(smallest, bytes);
    if (bytes > info.maxSharedMemoryBytes || o.rows * choice.subgroupSize > info.maxWorkgroupInvocations) continue;
    AttentionKernelShape s;
    s.subgroup = choice.subgroupSize;
    s.requiredSubgroupSize = choice.subgroupSize;
    s.fragM = fm;
    s.fragN = choice.pad;
    s.fragK = choice.pad;
    s.uniformTiles = info.defaultProfile() == KernelProfile::CpuDriver;  // as fragmentShape
    s.workgroup = o.rows * choice.subgroupSize;
    s.rows = o.rows;
    s.keyBlock = o.keys;
    s.stages = o.stages;
    return s;
  }
  if (smallest == ~uint64_t{0})
    throw refuse("with head dims " + std::to_string(plan.dk) + "/" + std::to_string(plan.dv) +
                 " needs flexible dimensions of " + std::to_string(std::max(dk, dv)) + "; " + info.name +
                 " allows " + std::to_string(choice.maxDimension));
  throw refuse("with head dims " + std::to_string(plan.dk) + "/" + std::to_string(plan.dv) + " needs at least " +
               std::to_string(smallest) + " bytes of shared memory; " + info.name + " has " +
               std::to_string(info.maxSharedMemoryBytes));
}

// Whether the fragment kernel on the matrix units takes these inputs (f16, head dims 16..256 in
// steps of 8, dense K/V of q's dtype, one sequence per batch entry): where Auto picks it on GPUs.
bool fragmentKernelTakes(const AttentionPlan& plan) {
  auto dim = [](int64_t d) { return d >= 16 && d <= 256 && d % 8 == 0; };
  return plan.dtype == DType::F16 && plan.kvDtype == plan.dtype && !plan.pageSize && !plan.varlen && dim(plan.dk) &&
         dim(plan.dv);
}

// How one invocation's loop count grows with its keys: `perStep` iterations per `keysPerStep`
// keys, plus `fixed` once.
struct KeyLoop {
  uint64_t keysPerStep = 1, perStep = 1, fixed = 0;
  uint64_t iterations(uint64_t keys) const { return (keys + keysPerStep - 1) / keysPerStep * perStep + fixed; }
};

// Rows: one iteration per KEY_BLOCK keys (times the lanes in decode mode), one more when split.
// Fragment kernel (the emulated build keeps its loops over fragments rolled): per tile the S and
// PV products and a rescale, plus Q and the output once.
// Cooperative-matrix-2 kernel: one iteration per tile, plus its rolled loops over Q and the output
// block (FM x padded head dim over the subgroup's lanes), two of them with split-K.
KeyLoop keyLoopOf(const AttentionPlan& plan, const AttentionKernelShape& shape, bool fragments, bool coopmat2) {
  if (coopmat2) {
    const uint64_t dk = roundUp(plan.dk, shape.fragN), dv = roundUp(plan.dv, shape.fragN);
    return {shape.keyBlock, 1, (uint64_t{shape.fragM} * (dk + 2 * dv) + shape.subgroup - 1) / shape.subgroup + 8};
  }
  if (!fragments) return {uint64_t{shape.keyBlock} * (shape.laneKeys ? shape.workgroup : 1), 1, 1};
  const uint64_t dk = roundUp(plan.dk, shape.fragK) / shape.fragK, dv = roundUp(plan.dv, shape.fragN) / shape.fragN;
  const uint64_t cs = shape.keyBlock / shape.fragN, cp = shape.keyBlock / shape.fragK;
  return {shape.keyBlock, 1 + cs * (1 + dk) + cp * (1 + dv) + dv, dk + 2 * dv};
}

// Key splits for the rows and fragment kernels: enough that each split's loop stays under the
// driver's limit, more when few workgroups would leave the device idle over many keys (decode):
// up to busyWorkgroups in all, each split covering at least minKeysPerSplit keys.
uint32_t chooseSplits(const Context& ctx, const AttentionPlan& plan, const KeyLoop& loop, uint64_t workgroups,
                      uint32_t requested) {
  const uint64_t steps = (static_cast<uint64_t>(plan.lk) + loop.keysPerStep - 1) / loop.keysPerStep;
  const uint32_t limit = ctx.info().loopIterationLimit;
  const uint64_t budget = limit ? limit - limit / 16 : ~uint64_t{0};
  const uint64_t stepBudget = budget > loop.fixed ? std::max<uint64_t>(1, (budget - loop.fixed) / loop.perStep) : 1;
  const uint64_t needed = (steps + stepBudget - 1) / stepBudget;
  uint64_t splits = requested;
  if (requested == 0) {
    const uint64_t busy = busyWorkgroups(ctx.info());
    uint64_t wanted = workgroups < busy ? busy / workgroups : 1;
    wanted = std::min<uint64_t>(wanted,
                                std::max<uint64_t>(1, static_cast<uint64_t>(plan.lk) / minKeysPerSplit(ctx.info())));
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

// A multiplier coprime to n near n / golden ratio: g -> (g * m) mod n is then a permutation whose
// contiguous ranges spread evenly over 0 .. n - 1.
uint32_t spreadMultiplier(uint64_t n) {
  if (n < 3) return 1;
  auto m = static_cast<uint64_t>(static_cast<double>(n) * 0.6180339887498949);
  while (std::gcd(m, n) != 1) ++m;
  return static_cast<uint32_t>(m);
}

}  // namespace

std::optional<AttentionVariant> attentionVariantNamed(std::string_view s) noexcept {
  if (s == "rows" || s == "cpu") return AttentionVariant::Rows;
  if (s == "tiled" || s == "gpu") return AttentionVariant::Tiled;
  if (s == "coopmat") return AttentionVariant::Coopmat;
  if (s == "coopmat-emulated") return AttentionVariant::CoopmatEmulated;
  if (s == "coopmat2") return AttentionVariant::Coopmat2;
  if (s == "auto") return AttentionVariant::Auto;
  return std::nullopt;
}

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
    case AttentionVariant::Coopmat2:
      return "coopmat2";
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
  // A paged cache and K/V in bf16, Q8_0 or Q4_0 are read by the rows kernel only, which Auto then
  // picks for any query count.
  const bool rowsOnly = plan.pageSize || plan.kvDtype != plan.dtype || plan.varlen;
  AttentionVariant variant = rowsOnly && options.variant == AttentionVariant::Auto
                                 ? AttentionVariant::Rows
                                 : attentionVariantFor(ctx, options.variant, plan.lq);
  // Auto on a GPU with matrix units: the fragment kernel wherever it takes the inputs.
  if (options.variant == AttentionVariant::Auto && variant == AttentionVariant::Tiled && !variantFromEnvironment() &&
      ctx.info().cooperativeMatrixF16 && fragmentKernelTakes(plan))
    variant = AttentionVariant::Coopmat;
  if (plan.pageSize && variant != AttentionVariant::Rows)
    throw Unsupported(std::string("argument 'blockTable': a paged K/V cache is read by the rows kernel only, not the ") +
                      toString(variant) + " variant");
  if (variant != AttentionVariant::Rows) {
    const std::string path = std::string("the ") + toString(variant) + " variant";
    detail::requireDenseKvFormat(plan, path);
    detail::requireDenseBatch(plan, path);
  }
  const bool rows = variant == AttentionVariant::Rows;
  const bool emulated = variant == AttentionVariant::CoopmatEmulated;
  const bool coopmat2 = variant == AttentionVariant::Coopmat2;
  const bool coopmat = variant == AttentionVariant::Coopmat || emulated || coopmat2;  // fragment kernels
  if (!rows && !coopmat && options.keySplits > 1)
    throw InvalidArgument("keySplits", "the tiled variant does not split keys (rows and the coopmat kernels do)");
  AttentionKernelShape shape = rows       ? rowsShape(ctx, plan)
                               : coopmat2 ? coopmat2Shape(ctx, plan)
                               : coopmat  ? fragmentShape(ctx, plan, emulated)
                                          : tiledShape(ctx, plan);
  shape.writeLse = options.lse.has_value();
  // One workgroup per (batch, head, block of query rows) — in decode mode per (batch, KV head,
  // block of the group's packed rows) — times the key splits.
  const uint64_t rowsPerGroup = rows      ? uint64_t{shape.rows} * (shape.laneKeys ? 1 : shape.workgroup)
                                : coopmat ? uint64_t{shape.fragM} * shape.rows
                                          : uint64_t{shape.workgroup / shape.rowLanes};
  const uint64_t owners = static_cast<uint64_t>(plan.batch * (shape.laneKeys ? plan.headsKv : plan.headsQ));
  const uint64_t ownerRows = static_cast<uint64_t>(plan.lq * (shape.laneKeys ? plan.headsQ / plan.headsKv : 1));
  const uint64_t workgroups = owners * ((ownerRows + rowsPerGroup - 1) / rowsPerGroup);
  const KeyLoop loop = keyLoopOf(plan, shape, coopmat, coopmat2);
  const uint32_t splits = rows || coopmat ? chooseSplits(ctx, plan, loop, workgroups, options.keySplits) : 1;
  shape.split = splits > 1;
  // Loops left after unrolling, per invocation over its split's keys; tiled runs one per tile
  // plus one per 4 keys inside it.
  const uint64_t keysPerSplit = (static_cast<uint64_t>(plan.lk) + splits - 1) / splits;
  const uint64_t tiles = (keysPerSplit + shape.keyBlock - 1) / shape.keyBlock;
  detail::requireLoopBudget(ctx, rows || coopmat ? loop.iterations(keysPerSplit) : tiles * (1 + shape.keyBlock / 4),
                            "attention over " + std::to_string(plan.lk) + " keys (argument 'k')");

  const CoopmatChoice coopmatChoice =
      variant == AttentionVariant::Coopmat ? coopmatChoiceFor(ctx.info()) : CoopmatChoice{};
  const std::string shader = rows       ? detail::rowsShaderName(plan)
                             : emulated ? "attention_coopmat_emu"
                             : coopmat2 ? "attention_coopmat2"
                             : coopmat  ? coopmatShader("attention_coopmat", coopmatChoice.flavour)
                                        : "attention_tiled";
  const Pipeline& pipeline =
      ctx.pipelines().get({rows ? shader : detail::variantName(shader, plan.dtype), ATTN_BINDING_COUNT, sizeof(pc::AttentionParams),
                           detail::attentionConstants(plan, shape),
                           coopmatChoice.requireSubgroupSize ? coopmatChoice.subgroupSize : shape.requiredSubgroupSize});
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
  if (plan.varlen) {
    // The sequences' offsets, for the kernel and its combine, then the multiplier that spreads
    // the sequences' groups (of different lengths) over the workgroups, which CPU drivers hand to
    // their threads in contiguous ranges.
    plan.sequences.push_back(static_cast<int32_t>(spreadMultiplier(workgroups)));
    const std::size_t bytes = plan.sequences.size() * sizeof(int32_t);
    Buffer seqs(ctx.device(), bytes);
    seqs.write(plan.sequences.data(), bytes);
    plan.seqs = &rec.keepAlive(std::move(seqs));
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
                {ATTN_BINDING_ALIBI, plan.alibi},
                {ATTN_BINDING_PAGES, plan.pages},
                {ATTN_BINDING_SEQS, plan.seqs}},
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
                  {ATTN_COMBINE_BINDING_SINKS, plan.sinks},
                  {ATTN_COMBINE_BINDING_SEQS, plan.seqs}},
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
