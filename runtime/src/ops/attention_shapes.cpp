#include "attention_shapes.hpp"

#include <kernel_interface.h>
#include <shared_layout.h>

#include <algorithm>
#include <array>
#include <span>
#include <vector>

#include "tile_override.hpp"
#include "vkattn/core/checked_size.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/device_parallelism.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/fragment_layout.hpp"
#include "vkattn/ops/tile_rankings.hpp"

namespace vkattn::detail {

uint64_t roundUp(int64_t x, uint64_t to) {
  return (static_cast<uint64_t>(x) + to - 1) / to * to;
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

AttentionKernelShape rowsShape(Context& ctx, const AttentionPlan& plan) {
  AttentionKernelShape s;
  const auto pairs = static_cast<uint64_t>(checkedElementCount({plan.batch, plan.headsQ, plan.lq, plan.lk}, "q"));
  const uint32_t rowsForHeadDim = std::max(plan.dk, plan.dv) > 128 ? 1 : 4;
  const bool largeBlock =
      ctx.profile() == KernelProfile::CpuDriver && std::max(plan.dk, plan.dv) <= 64 && pairs >= kLargeBlockPairs;
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
AttentionKernelShape tiledShape(Context& ctx, const AttentionPlan& plan) {
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
constexpr uint32_t kEmulatedFragmentLanes = FRAG_EMULATED_LANES;
constexpr uint32_t kEmulatedFragment = FRAG_EMULATED_SIZE;

namespace {

using Tile = std::array<uint32_t, 3>;  // rows x keys x stages

// The tiles a fragment kernel tries, in order: the one VKATTN_ATTENTION_TILE forces; else the CPU
// drivers' order; else `vendorId`'s ranked tiles for `kernel` at these head dims
// (vkattn/ops/tile_rankings.hpp; vendor 0: none) before the GPUs' order.
std::vector<Tile> attentionTileOrder(bool cpu, uint32_t vendorId, std::string_view kernel, const AttentionPlan& plan,
                                     std::span<const Tile> cpuOrder, std::span<const Tile> gpuOrder) {
  if (const auto forced = tileOverride("VKATTN_ATTENTION_TILE"))
    return {{(*forced)[0], (*forced)[1], std::min<uint32_t>((*forced)[2], 2)}};
  if (cpu) return {cpuOrder.begin(), cpuOrder.end()};
  return rankedTileOrder(vendorId, kernel, static_cast<uint32_t>(std::max(plan.dk, plan.dv)), gpuOrder);
}

}  // namespace

// Fragment kernel (attention_coopmat.comp, hardware or emulated fragments): ROWS subgroups of FM
// query rows each per workgroup, KEY_BLOCK keys per tile and STAGES K/V buffers: the first of
// the configurations below, in order of expected speed, whose shared memory (shared_layout.h's
// count, the one the shader declares its arrays with) fits the device. On GPUs double-buffered
// tiles come first: a single buffer loads and stores each tile inside the key loop, and AMD's
// compiler waits for memory once per load there (RDNA3, D 256: 16 waits a tile at 2x32x1, 1 at
// 2x16x2). CPU drivers, where staging overlaps nothing, keep larger key tiles first.
AttentionKernelShape fragmentShape(Context& ctx, const AttentionPlan& plan, bool emulated) {
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
  FragmentLayout layout;  // where the softmax keeps S and P: in registers where the layout allows
  if (!emulated) {
    // The KHR or NV module, its fragment shape and the subgroup size it is sized for.
    const CoopmatChoice choice = coopmatChoiceFor(info);
    if (choice.flavour == CoopmatFlavour::None) throw refuse("cannot run: " + choice.reason);
    if (plan.dtype != DType::F16) throw refuse("takes f16 q, k, v only");
    lanes = choice.subgroupSize;
    fm = choice.m;
    fn = choice.n;
    fk = choice.k;
    layout = fragmentLayoutFor(ctx, choice);
  } else {
    layout = emulatedFragmentLayout(ctx);
  }
  const uint64_t e = plan.dtype == DType::F16 ? 2 : 4, pad = 16 / e;
  const uint64_t dk = roundUp(plan.dk, fk), dv = roundUp(plan.dv, fn);
  // Q's fragments stay in registers up to 128 columns; past that Q stays in shared memory and each
  // tile reloads them: at D 256 Q's and O's fragments together would fill the registers (AMD's
  // compiler, RDNA3 wave64: 76 VGPRs spilled, reloaded 9 times a key tile).
  const bool sharedQ = dk > 128;
  // V tiles staged transposed, so that P V's B fragments load along keys from one shared-memory
  // row: AMD's compiler read row-major V two bytes at a time (RDNA3). NVIDIA keeps the row-major
  // tiles it was measured with; the emulated fragments read element by element either way.
  const bool vTransposed = !emulated && info.vendorId != kVendorNvidia;
  constexpr Tile kGpuOptions[] = {{4, 64, 2}, {4, 32, 2}, {2, 64, 2}, {2, 32, 2}, {4, 16, 2}, {2, 16, 2}, {4, 64, 1},
                                  {4, 32, 1}, {2, 32, 1}, {4, 16, 1}, {2, 16, 1}, {1, 32, 1}, {1, 16, 1}};
  constexpr Tile kCpuOptions[] = {{4, 64, 2}, {4, 32, 2}, {4, 64, 1}, {4, 32, 1}, {2, 64, 2}, {2, 32, 2}, {2, 32, 1},
                                  {4, 16, 2}, {4, 16, 1}, {2, 16, 2}, {2, 16, 1}, {1, 32, 1}, {1, 16, 1}};
  const std::vector<Tile> options = attentionTileOrder(info.kind == DeviceKind::Cpu, emulated ? 0 : info.vendorId,
                                                       "attention coopmat", plan, kCpuOptions, kGpuOptions);
  uint64_t smallest = ~uint64_t{0};  // the least shared memory any configuration needs
  for (const auto& [rows, keys, stages] : options) {
    const uint64_t bytes = ATTN_COOPMAT_SHARED_BYTES(
        uint64_t{stages}, uint64_t{keys}, dk, dv, pad, e, uint64_t{fm}, uint64_t{fn}, uint64_t{fk}, uint64_t{rows},
        uint64_t{sharedQ}, uint64_t{vTransposed}, uint64_t{static_cast<uint32_t>(layout.placement)});
    // Tiles hold whole fragments: keys in multiples of FN (S) and of FK (P).
    if (keys % fn != 0 || keys % fk != 0) continue;
    smallest = std::min(smallest, bytes);
    if (bytes <= info.maxSharedMemoryBytes && rows * lanes <= info.maxWorkgroupInvocations) {
      AttentionKernelShape s;
      s.subgroup = lanes;
      s.fragM = fm;
      s.fragN = fn;
      s.fragK = fk;
      // CPU drivers run each subgroup as one SIMD vector; lavapipe makes every control barrier a
      // workgroup barrier, which subgroups that skip a tile would not all reach (docs/attention.md).
      s.lockstepSubgroups = info.kind == DeviceKind::Cpu;
      s.sharedQ = sharedQ;
      s.vTransposed = vTransposed;
      s.softmax = static_cast<uint32_t>(layout.placement);
      s.fragLaneFree = layout.laneFree;
      s.fragElemFree = layout.elementFree;
      s.workgroup = rows * lanes;
      s.rows = rows;
      s.keyBlock = keys;
      s.stages = stages;
      return s;
    }
  }
  throw refuse("with head dims " + std::to_string(plan.dk) + "/" + std::to_string(plan.dv) + " needs at least " +
               std::to_string(smallest) + " bytes of shared memory; " + info.name + " has " +
               std::to_string(info.maxSharedMemoryBytes));
}

namespace {
// What both cooperative-matrix-2 kernels take (f16, head dims 8..256 in steps of 8), or why not.
std::string coopmat2InputRefusal(const AttentionPlan& plan) {
  if (plan.dtype != DType::F16) return "takes f16 q, k, v only";
  if (plan.dk < 8 || plan.dk > 256 || plan.dk % 8 != 0 || plan.dv < 8 || plan.dv > 256 || plan.dv % 8 != 0)
    return "takes head dims 8..256 in steps of 8, not " + std::to_string(plan.dk) + "/" + std::to_string(plan.dv) +
           " (the rows and tiled variants take any up to 576)";
  return "";
}
}  // namespace

// Cooperative-matrix-2 kernel (attention_coopmat2.comp): ROWS subgroups of FM query rows each,
// KEY_BLOCK keys per tile and STAGES K/V buffers, the first configuration below that fits the
// device's shared memory (shared_layout.h's count) and its largest flexible dimension. FM is the
// device's row granularity, the only row count verified (README, Attention: coopmat2). CPU
// drivers take small tiles: their build time grows with the elements per lane (FM x KEY_BLOCK /
// lanes), as the per-element operations are unrolled element by element.
AttentionKernelShape coopmat2Shape(Context& ctx, const AttentionPlan& plan) {
  const DeviceInfo& info = ctx.info();
  auto refuse = [&](const std::string& why) {
    return Unsupported("cooperative-matrix-2 attention " + why + " (variant Coopmat2)");
  };
  const Coopmat2Choice choice = coopmat2ChoiceFor(info);
  if (!choice.usable) throw refuse("cannot run: " + choice.reason);
  if (const std::string why = coopmat2InputRefusal(plan); !why.empty()) throw refuse(why);
  const uint64_t dk = roundUp(plan.dk, choice.pad), dv = roundUp(plan.dv, choice.pad);
  constexpr Tile kGpuOptions[] = {{4, 64, 2}, {4, 32, 2}, {2, 64, 2}, {2, 32, 2}, {4, 32, 1}, {2, 32, 1},
                                  {1, 32, 2}, {1, 32, 1}, {2, 16, 1}, {1, 16, 1}, {1, 8, 1}};
  constexpr Tile kCpuOptions[] = {{2, 16, 1}, {1, 16, 1}, {1, 8, 1}};
  const std::vector<Tile> options = attentionTileOrder(info.defaultProfile() == KernelProfile::CpuDriver, info.vendorId,
                                                       "attention coopmat2", plan, kCpuOptions, kGpuOptions);
  const uint32_t fm = choice.rows;
  uint64_t smallest = ~uint64_t{0};  // the least shared memory any configuration needs
  for (const auto& [rows, keys, stages] : options) {
    const uint64_t bytes = ATTN_COOPMAT2_SHARED_BYTES(uint64_t{stages}, uint64_t{keys}, dk, dv, uint64_t{8},
                                                      uint64_t{2}, uint64_t{fm}, uint64_t{rows});
    if (keys % choice.pad != 0 || std::max<uint64_t>({dk, dv, keys}) > choice.maxDimension) continue;
    smallest = std::min(smallest, bytes);
    if (bytes > info.maxSharedMemoryBytes || rows * choice.subgroupSize > info.maxWorkgroupInvocations) continue;
    AttentionKernelShape s;
    s.subgroup = choice.subgroupSize;
    s.requiredSubgroupSize = choice.subgroupSize;
    s.fragM = fm;
    s.fragN = choice.pad;
    s.fragK = choice.pad;
    s.lockstepSubgroups = info.kind == DeviceKind::Cpu;  // as fragmentShape
    s.workgroup = rows * choice.subgroupSize;
    s.rows = rows;
    s.keyBlock = keys;
    s.stages = stages;
    return s;
  }
  if (smallest == ~uint64_t{0})
    throw refuse("with head dims " + std::to_string(plan.dk) + "/" + std::to_string(plan.dv) +
                 " needs flexible dimensions of " + std::to_string(std::max(dk, dv)) + "; " + info.name + " allows " +
                 std::to_string(choice.maxDimension));
  throw refuse("with head dims " + std::to_string(plan.dk) + "/" + std::to_string(plan.dv) + " needs at least " +
               std::to_string(smallest) + " bytes of shared memory; " + info.name + " has " +
               std::to_string(info.maxSharedMemoryBytes));
}

// Workgroup-scope cooperative-matrix-2 kernel (attention_coopmat2_wg.comp): one workgroup-scope
// matrix of BM query rows per workgroup, KEY_BLOCK keys per tile, no shared memory of its own
// (the compiler stages the matrices in what the device reserves for them). The tile is the one
// FlashAttention-2 and llama.cpp's NVIDIA kernel use, 64 rows x 64 keys over 128 invocations,
// rounded to the device's granularities; nothing measured yet chose it. Tensor loads and stores
// need 16-byte aligned bases: every (batch, head) base of q, k, v and out at a multiple of 8 halves.
AttentionKernelShape coopmat2WorkgroupShape(Context& ctx, const AttentionPlan& plan) {
  const DeviceInfo& info = ctx.info();
  auto refuse = [&](const std::string& why) {
    return Unsupported("workgroup-scope cooperative-matrix-2 attention " + why + " (variant Coopmat2Workgroup)");
  };
  const Coopmat2WorkgroupChoice choice = coopmat2WorkgroupChoiceFor(info);
  if (!choice.usable) throw refuse("cannot run: " + choice.reason);
  if (const std::string why = coopmat2InputRefusal(plan); !why.empty()) throw refuse(why);
  const pc::AttentionParams& p = plan.params;
  if ((p.qOffset | p.qStrideB | p.qStrideH | p.kOffset | p.kStrideB | p.kStrideH | p.vOffset | p.vStrideB | p.vStrideH |
       p.oOffset | p.oStrideB | p.oStrideH) %
          8 !=
      0)
    throw refuse(
        "needs each head of q, k, v and out to start at a multiple of 8 elements (16 bytes): their offsets "
        "and batch and head strides");
  const uint32_t rows = static_cast<uint32_t>(roundUp(64, choice.rows));
  const uint32_t keys = static_cast<uint32_t>(roundUp(64, choice.pad));
  const uint64_t dk = roundUp(plan.dk, choice.pad), dv = roundUp(plan.dv, choice.pad);
  if (std::max<uint64_t>({dk, dv, keys, rows}) > choice.maxDimension)
    throw refuse("with head dims " + std::to_string(plan.dk) + "/" + std::to_string(plan.dv) +
                 " needs flexible dimensions of " + std::to_string(std::max<uint64_t>({dk, dv, keys, rows})) + "; " +
                 info.name + " allows " + std::to_string(choice.maxDimension));
  const uint32_t workgroup = std::min({128u, choice.maxWorkgroup, info.maxWorkgroupInvocations});
  if (workgroup == 0) throw refuse("cannot run: " + info.name + " reports no workgroup size for workgroup scope");
  AttentionKernelShape s;
  s.workgroup = workgroup;
  s.subgroup = info.subgroupSize;
  s.fragM = rows;
  s.fragN = choice.pad;
  s.fragK = choice.pad;
  s.rows = 1;
  s.keyBlock = keys;
  s.stages = 1;
  return s;
}

// Decode kernel: 16-byte words of 4 (f32) or 8 (f16) elements. A lane holds its slice of ROWS
// rows of q and of the output, ROWS * (Dk + Dv) / D_LANES floats, kept at most kDecodeLaneFloats
// (the key group grows to the subgroup's width, then the rows shrink); KEY_BLOCK keys per step
// so that a lane has about 8 words of K and V in flight; 128 invocations per workgroup where
// shared memory holds a record per subgroup and row.
constexpr uint64_t kDecodeLaneFloats = 64;
constexpr uint32_t kDecodeWorkgroup = 128;
constexpr uint64_t kDecodeWordsInFlight = 8;

namespace {
uint64_t decodeWordElements(const AttentionPlan& plan) {
  return plan.dtype == DType::F16 ? 8 : 4;
}
}  // namespace

std::string decodeRefusal(const Context& ctx, const AttentionPlan& plan) {
  const DeviceInfo& info = ctx.info();
  const LaneSplitSubgroup lanes = laneSplitSubgroup(info);
  if (!lanes.size || !info.subgroupShuffle)
    return info.name +
           " has no subgroup size the kernel can be built for (fixed, or required through subgroup "
           "size control) with subgroup arithmetic and shuffles";
  if (plan.kvDtype != plan.dtype) return std::string("it reads K/V of q's dtype, not ") + toString(plan.kvDtype);
  if (plan.varlen) return "it does not read a packed batch (cuSeqlensQ)";
  const uint64_t word = decodeWordElements(plan);
  if (plan.dk % word != 0 || plan.dv % word != 0)
    return "it takes head dims in multiples of " + std::to_string(word) + " (16-byte words of " + toString(plan.dtype) +
           "), not " + std::to_string(plan.dk) + "/" + std::to_string(plan.dv);
  const pc::AttentionParams& p = plan.params;
  if ((p.kStrideB | p.kStrideH | p.kStrideL | p.kOffset | p.vStrideB | p.vStrideH | p.vStrideL | p.vOffset) % word != 0)
    return "its K and V rows must start at multiples of " + std::to_string(word) +
           " elements (16-byte words): every stride and offset of k and v";
  return "";
}

AttentionKernelShape decodeShape(Context& ctx, const AttentionPlan& plan) {
  if (const std::string why = decodeRefusal(ctx, plan); !why.empty())
    throw Unsupported("decode attention cannot run: " + why + " (variant Decode)");
  const DeviceInfo& info = ctx.info();
  const LaneSplitSubgroup lanes = laneSplitSubgroup(info);
  const uint64_t word = decodeWordElements(plan);
  const uint64_t wk = static_cast<uint64_t>(plan.dk) / word, wv = static_cast<uint64_t>(plan.dv) / word;
  const uint64_t packedRows = static_cast<uint64_t>(plan.lq * (plan.headsQ / plan.headsKv));
  AttentionKernelShape s;
  s.subgroup = lanes.size;
  s.requiredSubgroupSize = lanes.required ? lanes.size : 0;
  s.rows = static_cast<uint32_t>(std::min<uint64_t>(packedRows, 4));
  auto laneFloats = [&] { return uint64_t{s.rows} * static_cast<uint64_t>(plan.dk + plan.dv) / s.rowLanes; };
  while (laneFloats() > kDecodeLaneFloats && 2 * s.rowLanes <= lanes.size && wk % (2 * s.rowLanes) == 0 &&
         wv % (2 * s.rowLanes) == 0)
    s.rowLanes *= 2;
  while (laneFloats() > kDecodeLaneFloats && s.rows > 1) --s.rows;
  const uint64_t wordsPerKey = (wk + wv) / s.rowLanes;
  s.keyBlock = static_cast<uint32_t>(std::clamp<uint64_t>(kDecodeWordsInFlight / wordsPerKey, 1, 4));
  const uint32_t invocations = std::min(kDecodeWorkgroup, info.maxWorkgroupInvocations);
  s.workgroup = std::max(lanes.size, invocations / lanes.size * lanes.size);
  auto sharedBytes = [&] {
    return uint64_t{s.workgroup / lanes.size} * s.rows * static_cast<uint64_t>(plan.dv + 2) * 4;
  };
  while (sharedBytes() > info.maxSharedMemoryBytes && s.workgroup > lanes.size) s.workgroup -= lanes.size;
  if (sharedBytes() > info.maxSharedMemoryBytes)
    throw Unsupported("decode attention with head dim " + std::to_string(plan.dv) + " (argument 'v') needs " +
                      std::to_string(sharedBytes()) + " bytes of shared memory; " + info.name + " has " +
                      std::to_string(info.maxSharedMemoryBytes) + " (variant Decode)");
  return s;
}

}  // namespace vkattn::detail
