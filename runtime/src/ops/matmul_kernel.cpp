#include "matmul_kernel.hpp"

#include <kernel_interface.h>
#include <shared_layout.h>

#include <algorithm>
#include <cstdlib>
#include <span>
#include <thread>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "tile_override.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/tile_rankings.hpp"

namespace vkattn {
namespace {

static_assert(static_cast<int>(Activation::None) == VKATTN_ACT_NONE);
static_assert(static_cast<int>(Activation::Relu) == VKATTN_ACT_RELU);
static_assert(static_cast<int>(Activation::Gelu) == VKATTN_ACT_GELU);
static_assert(static_cast<int>(Activation::GeluTanh) == VKATTN_ACT_GELU_TANH);
static_assert(static_cast<int>(Activation::Silu) == VKATTN_ACT_SILU);

uint32_t ceilDiv(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>((a + b - 1) / b);
}

bool multipleOf4(std::initializer_list<uint32_t> values) {
  for (uint32_t v : values)
    if (v % 4 != 0) return false;
  return true;
}

// The rows kernel's shape. Measured on lavapipe (2 shared cores, fp32 linear, GFLOP/s at 512^3):
// a's values loaded once per subgroup and shuffled to the lanes, rows x columns per block 32x4 ~33,
// 32x8 ~31, 64x8 ~42, 32x16 ~25 (spills); with every lane loading every a value instead (llvmpipe
// gathers per lane even for uniform addresses inside loops) 8x4 ~4-7. One subgroup per workgroup
// (no barriers; the shuffle needs it). Blocks shrink while there would be fewer than two
// workgroups per CPU thread, so small layers still spread over every thread. Rows are powers of
// two and the output side is push constants, so few pipelines are built (~1.5 s each).
struct RowsShape {
  uint32_t workgroup = 8, rows = 64, cols = 8, kc = 32;
  bool shuffle = false;
};

// Loop iterations one invocation of the rows kernel runs (see matmul_rows.comp).
uint64_t rowsIterations(const RowsShape& s, uint32_t k) {
  const uint64_t rows = s.rows + 1;
  return (k / s.kc) * rows + (k % s.kc) * rows + s.rows + (uint64_t{k} + 3) / 4;
}

// Multiply-adds up to which the rows kernel takes its one light block shape on CPU drivers.
constexpr uint64_t kSmallMatmul = uint64_t{1} << 22;

RowsShape matmulRowsShape(const Context& ctx, uint32_t m, uint32_t n, uint32_t k, uint32_t batch) {
  const DeviceInfo& info = ctx.info();
  const bool cpu = ctx.profile() == KernelProfile::CpuDriver;
  RowsShape s;
  s.workgroup = cpu ? std::clamp<uint32_t>(info.subgroupSize, 8, 64) : 64;
  // Only small subgroups: the a values of one step (4 per lane) stay in registers.
  s.shuffle = cpu && info.subgroupShuffle && info.minSubgroupSize == info.maxSubgroupSize &&
              info.subgroupSize == s.workgroup && s.workgroup <= 16;
  if (!s.shuffle) s.rows = 8, s.cols = 4;  // without the shuffle, a's loads dominate: smaller blocks
  const uint64_t wanted = 2 * uint64_t{std::max(1u, std::thread::hardware_concurrency())};
  auto workgroups = [&] { return uint64_t{batch} * ceilDiv(m, s.rows) * ceilDiv(n, uint64_t{s.workgroup} * s.cols); };
  while (cpu && workgroups() < wanted && s.rows > 8) s.rows /= 2;
  while (cpu && workgroups() < wanted && s.cols > 2) s.cols /= 2;
  if (cpu && uint64_t{batch} * m * n * k <= kSmallMatmul) {
    // Products this small take microseconds, while every distinct block shape is a pipeline that
    // CPU drivers compile at its first dispatch (up to ~1 s each on lavapipe for the larger
    // blocks): one light shape serves them all.
    s.rows = 4;
    s.cols = 2;
  } else {
    // Powers of two only, so that odd M values share pipelines (each takes seconds to build).
    while (s.rows / 2 >= m && s.rows > 1) s.rows /= 2;
    // One row of a (decode) reuses no column's B run across rows: one column per invocation keeps
    // the run in registers, where eight spill. Mesa 26's lavapipe, M = 1, GFLOP/s at COLS 8 and 1:
    // N 5632 K 2048 0.97 and 1.57, N 2048 K 5632 1.02 and 1.65, N 49152 K 576 0.94 and 1.42
    // (Mesa 22's: 0.4 either way).
    if (cpu && m == 1) s.cols = 1;
  }
  if (s.shuffle) s.kc = 4 * s.workgroup;  // one vec4 of a per lane per row and step
  // The rows loop runs inside the K loop: fewer rows for long K, under the driver's loop limit.
  const uint32_t limit = info.loopIterationLimit;
  while (limit && s.rows > 1 && rowsIterations(s, k) > limit - limit / 16) s.rows /= 2;
  return s;
}

// The fragment kernel's shape (matmul_coopmat.comp): a subgroup quadrant of FRAGS x FRAGS
// fragments of fm x fn, K slices of BK and STAGES slice buffers; the first of the configurations
// below, in order of expected speed, whose shared memory (shared_layout.h's count) fits the device.
struct FragmentShape {
  uint32_t frags = 2, bk = 32, stages = 1;
  uint32_t fm = 16, fn = 16, fk = 16;
  uint32_t tileM() const { return 2 * fm * frags; }
  uint32_t tileN() const { return 2 * fn * frags; }
};

// The subgroup size and fragment shape the emulated fragments are compiled for (fragment.glsl).
constexpr uint32_t kEmulatedFragmentLanes = FRAG_EMULATED_LANES;
constexpr uint32_t kEmulatedFragment = FRAG_EMULATED_SIZE;

// `choice`: the hardware flavour with its fragment shape and subgroup size (ignored for the
// emulation, which runs 16 x 16 x 16 fragments at the device's fixed size).
FragmentShape matmulFragmentShape(const Context& ctx, DType dtype, bool emulated, const std::string& op,
                                  const CoopmatChoice& choice) {
  const DeviceInfo& info = ctx.info();
  const std::string kernel = emulated ? "the emulated cooperative-matrix kernel" : "the cooperative-matrix kernel";
  if (emulated) {
    if (info.minSubgroupSize != info.maxSubgroupSize || info.subgroupSize != kEmulatedFragmentLanes)
      throw Unsupported(op + ": " + kernel + " is compiled for a fixed subgroup size of " +
                        std::to_string(kEmulatedFragmentLanes) + "; " + info.name + " has " +
                        std::to_string(info.minSubgroupSize) + ".." + std::to_string(info.maxSubgroupSize));
    if (!info.subgroupShuffle)
      throw Unsupported(op + ": " + kernel + " needs subgroup shuffles; " + info.name + " lacks them");
    if (dtype == DType::F16 && !info.shaderFloat16)
      throw Unsupported(op + ": " + kernel + " with f16 operands needs shaderFloat16; " + info.name + " lacks it");
  } else if (dtype != DType::F16) {
    throw Unsupported(op + ": " + kernel + " takes f16 operands only");
  }
  const uint32_t lanes = emulated ? info.subgroupSize : choice.subgroupSize;
  if (4 * lanes > info.maxWorkgroupInvocations)
    throw Unsupported(op + ": " + kernel + " needs workgroups of " + std::to_string(4 * lanes) + " invocations on " +
                      info.name);
  const uint64_t e = dtype == DType::F16 ? 2 : 4, pad = 16 / e;
  // The portable order; a vendor's ranked tiles (vkattn/ops/tile_rankings.hpp) go first.
  constexpr std::array<uint32_t, 3> kPortable[] = {{4, 32, 2}, {4, 32, 1}, {2, 32, 2},
                                                   {2, 16, 2}, {2, 32, 1}, {2, 16, 1}};
  const auto forced = detail::tileOverride("VKATTN_MATMUL_TILE");
  std::vector<FragmentShape> options;
  if (forced)
    options.push_back({(*forced)[0], (*forced)[1], std::min<uint32_t>((*forced)[2], 2)});
  else
    for (const auto& t : rankedTileOrder(emulated ? 0 : info.vendorId, "linear coopmat", 0, kPortable))
      options.push_back({t[0], t[1], t[2]});
  for (FragmentShape s : options) {
    s.fm = emulated ? kEmulatedFragment : choice.m;
    s.fn = emulated ? kEmulatedFragment : choice.n;
    s.fk = emulated ? kEmulatedFragment : choice.k;
    if (s.bk % s.fk != 0) continue;
    const uint64_t bytes = MATMUL_COOPMAT_SHARED_BYTES(uint64_t{s.stages}, uint64_t{s.tileM()}, uint64_t{s.tileN()},
                                                       uint64_t{s.bk}, pad, e, uint64_t{s.fm}, uint64_t{s.fn});
    if (bytes <= info.maxSharedMemoryBytes) return s;
  }
  throw Unsupported(op + ": " + kernel + " needs more shared memory than " + info.name + " has");
}

// matmul_coopmat2_wg.comp takes f16 operands whose tensor bases are 16-byte aligned.
detail::Coopmat2WorkgroupShape matmulCoopmat2WorkgroupShape(const Context& ctx, const detail::MatmulCall& call,
                                                            const std::string& op) {
  const std::string kernel = op + ": the workgroup-scope cooperative-matrix-2 kernel ";
  const detail::Coopmat2WorkgroupShape s = detail::coopmat2WorkgroupShape(ctx, call.params.n, kernel);
  if (call.dtype != DType::F16) throw Unsupported(kernel + "takes f16 operands only");
  const pc::MatmulParams& p = call.params;
  const bool batched = p.batch > 1;
  if ((p.aOffset | p.bOffset | p.cOffset | (batched ? p.aStrideB | p.bStrideB | p.cStrideB : 0u)) % 8 != 0)
    throw Unsupported(kernel +
                      "needs a, B and the output to start at multiples of 8 elements (16 bytes), each batch "
                      "too");
  return s;
}

}  // namespace

namespace detail {

Coopmat2WorkgroupShape coopmat2WorkgroupShape(const Context& ctx, uint32_t n, const std::string& kernel) {
  const DeviceInfo& info = ctx.info();
  const Coopmat2WorkgroupChoice choice = coopmat2WorkgroupChoiceFor(info);
  if (!choice.usable) throw Unsupported(kernel + "cannot run: " + choice.reason);
  Coopmat2WorkgroupShape s;
  s.bn = n >= 4096 ? 256 : 128;
  s.bm = static_cast<uint32_t>((s.bm + choice.rows - 1) / choice.rows * choice.rows);
  s.bn = static_cast<uint32_t>((s.bn + choice.pad - 1) / choice.pad * choice.pad);
  s.bk = static_cast<uint32_t>((s.bk + choice.pad - 1) / choice.pad * choice.pad);
  s.workgroup = std::min({s.workgroup, choice.maxWorkgroup, info.maxWorkgroupInvocations});
  if (std::max({s.bm, s.bn, s.bk}) > choice.maxDimension)
    throw Unsupported(kernel + "needs flexible dimensions of " + std::to_string(std::max({s.bm, s.bn, s.bk})) + "; " +
                      info.name + " allows " + std::to_string(choice.maxDimension));
  if (s.workgroup == 0) throw Unsupported(kernel + "cannot run: " + info.name + " reports no workgroup size for it");
  return s;
}

void runMatmul(Context& ctx, MatmulCall& call, MatmulVariant requested, const std::string& op,
               std::vector<std::string> statusNames) {
  pc::MatmulParams& p = call.params;
  MatmulVariant variant = resolveMatmulVariant(ctx, requested);
  // Auto on a GPU with matrix units: the fragment kernel for f16 operands.
  if (requested == MatmulVariant::Auto && variant == MatmulVariant::Tiled && !matmulVariantFromEnvironment() &&
      ctx.info().cooperativeMatrixF16 && call.dtype == DType::F16)
    variant = MatmulVariant::Coopmat;
  // Auto on a GPU with few rows of a against B [N, K] (a dense layer at decode): the
  // matrix-vector kernel, which streams the weights once instead of tiling 8 rows into 64 or 128.
  if (requested == MatmulVariant::Auto && ctx.profile() == KernelProfile::Gpu && !matmulVariantFromEnvironment() &&
      p.m <= kMatvecMaxRows && p.batch == 1 && !call.bKN && ctx.info().subgroupArithmetic)
    variant = MatmulVariant::Matvec;
  p.activation = static_cast<uint32_t>(call.activation);
  p.hasBias = call.bias != nullptr;
  p.hasResidual = call.residual != nullptr;
  const uint64_t k4 = (uint64_t{p.k} + 3) / 4;
  SpecConstants constants;
  GroupCount groups;
  ShaderId shader{};
  uint32_t subgroupSize = 0;  // required subgroup size, 0 for the driver's choice
  if (variant == MatmulVariant::Rows) {
    const RowsShape s = matmulRowsShape(ctx, p.m, p.n, p.k, p.batch);
    requireLoopBudget(ctx, rowsIterations(s, p.k), op + " (rows kernel) with K = " + std::to_string(p.k));
    const bool alignedA = multipleOf4({p.aOffset, p.aStrideM, p.aStrideB});
    const bool alignedB = !call.bKN && multipleOf4({p.bOffset, p.bStrideRow, p.bStrideB});
    p.tilesM = ceilDiv(p.m, s.rows);
    p.tilesN = ceilDiv(p.n, uint64_t{s.workgroup} * s.cols);
    constants.set(SPEC_WORKGROUP_SIZE, s.workgroup)
        .set(MATMUL_SPEC_B_KN, call.bKN)
        .set(MATMUL_SPEC_ROWS, s.rows)
        .set(MATMUL_SPEC_COLS, s.cols)
        .set(MATMUL_SPEC_ALIGNED_A, alignedA)
        .set(MATMUL_SPEC_ALIGNED_B, alignedB)
        .set(MATMUL_SPEC_KC, s.kc);
    groups = groupsFor(ctx.device(), uint64_t{p.batch} * p.tilesM * p.tilesN);
    shader = (s.shuffle ? shaders::matmul_rows_shuffle : shaders::matmul_rows).of(call.dtype);
  } else if (variant == MatmulVariant::Tiled) {
    requireLoopBudget(ctx, (uint64_t{p.k} + 15) / 16 + k4, op + " (tiled kernel) with K = " + std::to_string(p.k));
    if (ctx.info().maxWorkgroupInvocations < 256)
      throw Unsupported(op + ": the tiled kernel needs workgroups of 256 invocations; " + ctx.info().name + " allows " +
                        std::to_string(ctx.info().maxWorkgroupInvocations));
    p.tilesM = ceilDiv(p.m, 64);
    p.tilesN = ceilDiv(p.n, 64);
    constants.set(SPEC_WORKGROUP_SIZE, uint32_t{256}).set(MATMUL_SPEC_B_KN, call.bKN);
    groups = groupsFor(ctx.device(), uint64_t{p.batch} * p.tilesM * p.tilesN);
    shader = shaders::matmul_tiled.of(call.dtype);
  } else if (variant == MatmulVariant::Coopmat || variant == MatmulVariant::CoopmatEmulated) {
    const bool emulated = variant == MatmulVariant::CoopmatEmulated;
    CoopmatChoice choice;  // hardware: the KHR or NV module, its fragment shape and subgroup size
    if (!emulated) {
      choice = coopmatChoiceFor(ctx.info());
      if (choice.flavour == CoopmatFlavour::None)
        throw Unsupported(op + ": the cooperative-matrix kernel cannot run: " + choice.reason);
    }
    const uint32_t lanes = emulated ? ctx.info().subgroupSize : choice.subgroupSize;
    const FragmentShape f = matmulFragmentShape(ctx, call.dtype, emulated, op, choice);
    const uint64_t slices = (uint64_t{p.k} + f.bk - 1) / f.bk;
    const uint64_t perSlice = 1 + f.bk / f.fk * (1 + 2 * f.frags + f.frags * (1 + f.frags));
    const uint64_t epilogue = f.frags * f.frags * (1 + (f.fm * f.fn + lanes - 1) / lanes);
    requireLoopBudget(ctx, slices * perSlice + epilogue + k4,
                      op + " (" + toString(variant) + " kernel) with K = " + std::to_string(p.k));
    const bool alignedA = multipleOf4({p.aOffset, p.aStrideM, p.aStrideB});
    const bool alignedB = multipleOf4({p.bOffset, p.bStrideRow, p.bStrideB});
    p.tilesM = ceilDiv(p.m, f.tileM());
    p.tilesN = ceilDiv(p.n, f.tileN());
    constants.set(SPEC_WORKGROUP_SIZE, 4 * lanes)
        .set(MATMUL_SPEC_B_KN, call.bKN)
        .set(MATMUL_SPEC_ALIGNED_A, alignedA)
        .set(MATMUL_SPEC_ALIGNED_B, alignedB)
        .set(MATMUL_SPEC_FRAGS, f.frags)
        .set(MATMUL_SPEC_BK, f.bk)
        .set(MATMUL_SPEC_STAGES, f.stages)
        .set(FRAG_SPEC_M, f.fm)
        .set(FRAG_SPEC_N, f.fn)
        .set(FRAG_SPEC_K, f.fk);
    groups = groupsFor(ctx.device(), uint64_t{p.batch} * p.tilesM * p.tilesN);
    shader = emulated                                ? shaders::matmul_coopmat_emu.of(call.dtype)
             : choice.flavour == CoopmatFlavour::Khr ? f16Only(shaders::matmul_coopmat_khr_f16, call.dtype)
                                                     : f16Only(shaders::matmul_coopmat_f16, call.dtype);
    subgroupSize = choice.requireSubgroupSize ? choice.subgroupSize : 0;
  } else if (variant == MatmulVariant::Coopmat2Workgroup) {
    const Coopmat2WorkgroupShape s = matmulCoopmat2WorkgroupShape(ctx, call, op);
    requireLoopBudget(ctx, (uint64_t{p.k} + s.bk - 1) / s.bk + k4,
                      op + " (coopmat2-wg kernel) with K = " + std::to_string(p.k));
    p.tilesM = ceilDiv(p.m, s.bm);
    p.tilesN = ceilDiv(p.n, s.bn);
    constants.set(SPEC_WORKGROUP_SIZE, s.workgroup)
        .set(MATMUL_SPEC_B_KN, call.bKN)
        .set(MATMUL_SPEC_BK, s.bk)
        .set(FRAG_SPEC_M, s.bm)
        .set(FRAG_SPEC_N, s.bn);
    groups = groupsFor(ctx.device(), uint64_t{p.batch} * p.tilesM * p.tilesN);
    shader = f16Only(shaders::matmul_coopmat2_wg_f16, call.dtype);
  } else if (variant == MatmulVariant::Matvec) {
    if (!ctx.info().subgroupArithmetic)
      throw Unsupported(op + ": the matvec kernel needs subgroup arithmetic, which " + ctx.info().name + " lacks");
    const DeviceInfo& info = ctx.info();
    const uint32_t workgroup =
        std::min<uint32_t>(std::max<uint32_t>(128, info.maxSubgroupSize), info.maxWorkgroupInvocations);
    requireLoopBudget(ctx, std::max<uint64_t>(k4 / (2 * workgroup) + 1, k4 + 1),
                      op + " (matvec kernel) with K = " + std::to_string(p.k));
    const uint32_t columns = 2;
    p.tilesM = ceilDiv(p.m, kMatvecMaxRows);
    p.tilesN = ceilDiv(p.n, columns);
    constants.set(SPEC_WORKGROUP_SIZE, workgroup)
        .set(MATMUL_SPEC_B_KN, call.bKN)
        .set(MATMUL_SPEC_COLS, columns)
        .set(MATMUL_SPEC_X_ROWS, p.m == 1 ? 1u : static_cast<uint32_t>(kMatvecMaxRows))
        .set(MATMUL_SPEC_ALIGNED_A, multipleOf4({p.aOffset, p.aStrideM, p.aStrideB}))
        .set(MATMUL_SPEC_ALIGNED_B, !call.bKN && multipleOf4({p.bOffset, p.bStrideRow, p.bStrideB}));
    groups = groupsFor(ctx.device(), uint64_t{p.batch} * p.tilesM * p.tilesN);
    shader = shaders::matmul_matvec.of(call.dtype);
  } else {
    requireLoopBudget(ctx, uint64_t{p.k} + k4, op + " (naive kernel) with K = " + std::to_string(p.k));
    const uint32_t workgroup = 64;
    p.tilesM = p.tilesN = 1;
    constants.set(SPEC_WORKGROUP_SIZE, workgroup).set(MATMUL_SPEC_B_KN, call.bKN);
    groups = groupsFor(ctx.device(), uint64_t{p.batch} * p.m * p.n, workgroup);
    shader = shaders::matmul_naive.of(call.dtype);
  }
  // Absent optional inputs bind a (never read: the spec constants drop their loads).
  const Buffer* bias = call.bias ? call.bias : call.a;
  const Buffer* residual = call.residual ? call.residual : call.a;
  recordOp(ctx, {shader, MATMUL_BINDING_COUNT, constants, subgroupSize},
           {{MATMUL_BINDING_A, call.a},
            {MATMUL_BINDING_B, call.b},
            {MATMUL_BINDING_C, call.c},
            {MATMUL_BINDING_BIAS, bias},
            {MATMUL_BINDING_RESIDUAL, residual}},
           p, groups, {op, std::move(statusNames), MATMUL_BINDING_STATUS});
  ctx.flush();
}

}  // namespace detail
}  // namespace vkattn
