#include "weight_kernel.hpp"

#include <kernel_interface.h>

#include <algorithm>
#include <optional>
#include <string>

#include "checks.hpp"
#include "linear_tail.hpp"
#include "op_dispatch.hpp"
#include "tile_override.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn::detail {
namespace {

// The tiled kernel's side: TILE x TILE outputs per workgroup of TILE * TILE / 16 invocations.
constexpr uint32_t kTile = 32;

// One weight kernel's modules: a pair (f32 and f16 x) per block format, and the one for f16 weights
// under f32 x where the kernel has it (f16 x with f16 weights takes the float matmul kernels).
struct WeightModules {
  const ByFormat<StorageVariants, 5>& blocks;
  std::optional<ShaderId> f16Weights;
};
constexpr WeightModules kMatvec{shaders::linear_q_matvec_by_format, shaders::linear_q_matvec_f16_f32};
constexpr WeightModules kMatvecSubgroup{shaders::linear_q_matvec_subgroup_by_format,
                                        shaders::linear_q_matvec_subgroup_f16_f32};
constexpr WeightModules kMatvecCpu{shaders::linear_q_matvec_cpu_by_format, shaders::linear_q_matvec_cpu_f16_f32};
constexpr WeightModules kMatvecInt8{shaders::linear_q_matvec_int8_by_format, std::nullopt};
constexpr WeightModules kTiled{shaders::linear_q_tiled_by_format, shaders::linear_q_tiled_f16_f32};
constexpr WeightModules kCoopmat2Workgroup{shaders::linear_q_coopmat2_wg_by_format,
                                           shaders::linear_q_coopmat2_wg_f16_f32};

ShaderId moduleFor(const WeightModules& kernel, DType format, DType storage) {
  if (const auto* pair = kernel.blocks.find(format)) return pair->of(storage);
  if (format == DType::F16 && kernel.f16Weights && storage == DType::F32) return *kernel.f16Weights;
  throw Error(std::string("linear: no weight kernel module for ") + toString(format) + " weights under " +
              toString(storage) + " x");
}

uint32_t ceilDiv(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>((a + b - 1) / b);
}

// The matrix-vector kernel's span on CPU drivers: how many of a unit's unit / 8 pieces one
// invocation decodes. A whole unit reads its scales once, but a row of K weights then has only
// K / unit of them to share among the workgroup's lanes, which leaves lanes idle on short rows.
// So: the widest span whose items (K / unit * unit / 8 / span per row) keep more than 9/10 of the
// lanes busy over the row, else the one that keeps the most busy. Measured on Mesa 26's lavapipe
// (2 cores, 8 lanes, 8 columns; decode tokens/s): the tiny LLaMA's Q4_K (K 256) 198 at span 8, 249
// at 4; SmolLM-135M's shape in Q4_0 (K 576 and 1536) 18 at span 4, 24 at 1; a 1024-wide Q4_K model
// 27 at span 8, 24 at 4, 14 at 1.
uint32_t cpuMatvecSpan(uint32_t k, uint32_t unit, uint32_t lanes) {
  uint32_t best = unit / 8;
  double bestBusy = 0.0;
  for (uint32_t span = unit / 8; span >= 1; span /= 2) {
    const uint64_t items = std::max<uint64_t>(1, uint64_t{k} / unit * (unit / 8 / span));
    const double busy = static_cast<double>(items) / (static_cast<double>(lanes) * ceilDiv(items, lanes));
    if (busy > 0.9) return span;
    if (busy > bestBusy) best = span, bestBusy = busy;
  }
  return best;
}

// The seventh buffer some weight modules bind: x in 8 bits (the integer-dot kernel and its
// quantizing kernel) or the RMSNorm weight x is normalized by (the float matrix-vector kernel).
struct ExtraBuffer {
  uint32_t binding;
  const Buffer* buffer;
  bool withTail = false;  // the float kernel's module, which also binds its tail's buffers
};

// One dispatch of `module` for the rows in p. The float matrix-vector kernel also binds its tail's
// buffers (x where it has no tail: the step's code is not specialized in).
void record(Context& ctx, const MatmulCall& call, pc::MatmulParams p, ShaderId module, const SpecConstants& constants,
            GroupCount groups, std::optional<ExtraBuffer> extra = std::nullopt) {
  const Buffer* bias = call.bias ? call.bias : call.a;
  const Buffer* residual = call.residual ? call.residual : call.a;
  StatusReport report{"linear", {"x", "weight", "bias", "residual", "inputNorm.weight"}, MATMUL_BINDING_STATUS};
  if (!extra) {
    recordOp(ctx, {module, MATMUL_BINDING_COUNT, constants, 0},
             {{MATMUL_BINDING_A, call.a},
              {MATMUL_BINDING_B, call.b},
              {MATMUL_BINDING_C, call.c},
              {MATMUL_BINDING_BIAS, bias},
              {MATMUL_BINDING_RESIDUAL, residual}},
             p, groups, report);
    return;
  }
  if (extra->binding == MATMUL_BINDING_X_Q8 && !extra->withTail) {
    recordOp(ctx, {module, MATMUL_INT8_BINDING_COUNT, constants, 0},
             {{MATMUL_BINDING_A, call.a},
              {MATMUL_BINDING_B, call.b},
              {MATMUL_BINDING_C, call.c},
              {MATMUL_BINDING_BIAS, bias},
              {MATMUL_BINDING_RESIDUAL, residual},
              {extra->binding, extra->buffer}},
             p, groups, report);
    return;
  }
  const LinearTail none;
  const LinearTail& tail = call.tail ? *call.tail : none;
  const auto or_ = [&](const Buffer* b) { return b ? b : call.a; };
  report.inputs.insert(report.inputs.end(), tail.statusNames.begin(), tail.statusNames.end());
  if (!tail.statusProblems.empty()) {
    report.problems.resize(report.inputs.size() - tail.statusNames.size());
    report.problems.insert(report.problems.end(), tail.statusProblems.begin(), tail.statusProblems.end());
  }
  recordOp(ctx, {module, MATMUL_MATVEC_BINDING_COUNT, constants, 0},
           {{MATMUL_BINDING_A, call.a},
            {MATMUL_BINDING_B, call.b},
            {MATMUL_BINDING_C, call.c},
            {MATMUL_BINDING_BIAS, bias},
            {MATMUL_BINDING_RESIDUAL, tail.kind == LINEAR_TAIL_POST_NORM ? call.tail->residual : residual},
            {extra->binding, extra->buffer},
            {MATMUL_BINDING_TAIL_COUNTER, or_(tail.counter)},
            {MATMUL_BINDING_TAIL_PARAMS, or_(tail.params)},
            {MATMUL_BINDING_TAIL_KEYS, or_(tail.keys)},
            {MATMUL_BINDING_TAIL_VALUES, or_(tail.values)},
            {MATMUL_BINDING_TAIL_PHASE, or_(tail.phase)},
            {MATMUL_BINDING_TAIL_NORM, or_(tail.norm)},
            {MATMUL_BINDING_TAIL_K_NORM, or_(tail.kNorm)},
            {MATMUL_BINDING_TAIL_POSITIONS, or_(tail.positions)}},
           p, groups, report);
}

// Bytes of x quantized to 8 bits for `rows` rows of k columns (shaders/include/x_q8.glsl): a byte
// per value, and two floats per block of 32.
uint64_t xQ8Bytes(uint64_t rows, uint64_t k) {
  return rows * k + rows * (k / 32) * 2 * sizeof(float);
}

}  // namespace

bool isWeightKernelPair(DType weight, DType x) noexcept {
  return isWeightFormat(weight) || (weight == DType::F16 && x == DType::F32);
}

uint32_t weightKernelUnit(DType weight) noexcept {
  return weight == DType::F16 || blockElements(weight) == 32 ? 32 : 64;
}

void runWeightLinear(Context& ctx, const MatmulCall& call, DType weightDtype, WeightKernel requested, bool gated) {
  const DeviceInfo& info = ctx.info();
  pc::MatmulParams p = call.params;
  p.activation = static_cast<uint32_t>(call.activation);
  p.hasBias = call.bias != nullptr;
  p.hasResidual = call.residual != nullptr;
  const uint32_t unit = weightKernelUnit(weightDtype);
  const WeightKernel kernel = weightKernelFor(ctx, p.m, weightDtype, requested);
  if (call.inputNorm != nullptr && kernel != WeightKernel::Matvec)
    throw Error("linear: only the float matrix-vector kernel normalizes x");  // linear() decides
  // The NaN report walks K elements of x and K / unit units of W (twice: a gate and an up row).
  const uint64_t report = (uint64_t{p.k} + p.k / unit) * (gated ? 2 : 1);
  SpecConstants constants;
  constants.set(MATMUL_SPEC_ALIGNED_A, p.aOffset % 4 == 0 && p.aStrideM % 4 == 0);
  if (gated && kernel != WeightKernel::Matvec && kernel != WeightKernel::MatvecInt8)
    throw Error("linear: gated products run on the matrix-vector kernels only");  // gatedLinear decides
  if (kernel == WeightKernel::Matvec || kernel == WeightKernel::MatvecInt8) {
    const bool int8 = kernel == WeightKernel::MatvecInt8;
    if (!info.subgroupArithmetic)
      throw Unsupported("linear: the matrix-vector weight kernel needs subgroup arithmetic, which " + info.name +
                        " lacks (VKATTN_WEIGHT_KERNEL=tiled runs the other kernel)");
    if (int8 && !info.integerDotProduct)
      throw Unsupported("linear: the integer-dot matrix-vector kernel needs shaderIntegerDotProduct, which " +
                        info.name + " lacks (VKATTN_WEIGHT_KERNEL=matvec runs the float one)");
    // One subgroup on CPU drivers, two or more on GPUs; at least a lane per row of x (lane m
    // stores row m's outputs). CPU drivers gather every load lane by lane: there an invocation
    // decodes whole units where the rows are long enough (cpuMatvecSpan) and each x load serves 8
    // columns. GPUs keep one column per workgroup (more workgroups to hide latency) and spread a
    // unit over consecutive invocations: one word of quants each for 32-weight units, two for the
    // K-quants' 64-weight units (on an H100 generating with a 1B-class Q4_K model, the float
    // matrix-vector kernels' GPU time per token: 1.85 ms at two words, 2.14 ms at one, 2.69 ms
    // with a whole unit per invocation). The integer-dot kernel takes the same shapes.
    const bool cpu = ctx.profile() == KernelProfile::CpuDriver;
    const auto minLanes = static_cast<uint32_t>(kWeightMatvecMaxRows);
    uint32_t workgroup =
        cpu ? std::clamp<uint32_t>(info.subgroupSize, minLanes, 64) : std::max<uint32_t>(64, info.maxSubgroupSize);
    uint32_t span = cpu ? cpuMatvecSpan(p.k, unit, workgroup) : unit / 32;
    // Output columns per workgroup; gated, each reads two rows of W (slots), so CPU drivers keep
    // 8 slots.
    uint32_t columns = cpu ? (gated ? 4 : 8) : 1;
    if (const auto forced = tileOverride("VKATTN_WEIGHT_MATVEC_TILE")) {
      const auto [s, c, w] = *forced;
      const uint64_t slots = uint64_t{c} * (gated ? 2 : 1);
      if ((unit / 8) % s != 0 || (s & (s - 1)) != 0 || c > 8 || w < minLanes || w % info.subgroupSize != 0 ||
          w > info.maxWorkgroupInvocations || minLanes * slots * w * sizeof(float) > info.maxSharedMemoryBytes)
        throw InvalidArgument("VKATTN_WEIGHT_MATVEC_TILE",
                              "SPANxCOLSxWORKGROUP: SPAN a power of two dividing " + std::to_string(unit / 8) +
                                  ", COLS 1..8, WORKGROUP a multiple of " + std::to_string(info.subgroupSize) +
                                  " from " + std::to_string(minLanes) + " to " +
                                  std::to_string(info.maxWorkgroupInvocations) + ", and 32 COLS x WORKGROUP bytes " +
                                  "(twice that for gated products) " + "within the shared memory (" +
                                  std::to_string(info.maxSharedMemoryBytes) + ")");
      span = s, columns = c, workgroup = w;
    }
    requireLoopBudget(ctx, std::max<uint64_t>(p.k / 8 / span / workgroup + 1, report),
                      "linear (matrix-vector weight kernel) with K = " + std::to_string(p.k));
    // Exactly one subgroup: a fixed subgroup size equal to the workgroup (the float kernel only).
    const bool oneSubgroup = !int8 && info.minSubgroupSize == info.maxSubgroupSize && info.subgroupSize == workgroup;
    if (call.tail && (int8 || gated || p.m > kWeightMatvecMaxRows))
      throw Error("linear: only the float matrix-vector kernel runs a step after the product, on one chunk of rows");
    if (call.tail) constants.set(MATMUL_SPEC_TAIL, call.tail->kind);  // else unset: the same pipeline as before
    constants.set(SPEC_WORKGROUP_SIZE, workgroup)
        .set(MATMUL_SPEC_COLS, columns * (gated ? 2 : 1))
        .set(MATMUL_SPEC_SPAN, span)
        .set(MATMUL_SPEC_GATED, gated)
        .set(MATMUL_SPEC_X_NORM, call.inputNorm != nullptr);
    // CPU drivers take the one-subgroup module's twin whose loop over a unit's pieces stays
    // rolled: it compiles in a fraction of the time (shaders/CMakeLists.txt).
    const WeightModules& kernel = int8                 ? kMatvecInt8
                                  : oneSubgroup && cpu ? kMatvecCpu
                                  : oneSubgroup        ? kMatvecSubgroup
                                                       : kMatvec;
    const ShaderId module = moduleFor(kernel, weightDtype, call.dtype);
    const uint32_t rows = p.m;
    const auto step = static_cast<uint32_t>(kWeightMatvecMaxRows);
    // The integer-dot kernel's x in 8 bits, one chunk of rows at a time (the recorder orders the
    // dispatches).
    std::optional<ExtraBuffer> extra;
    if (!int8) extra = ExtraBuffer{MATMUL_BINDING_X_NORM, call.inputNorm ? call.inputNorm : call.a, true};
    constexpr uint32_t kQuantizeWorkgroup = 64;
    SpecConstants quantizeConstants;
    quantizeConstants.set(SPEC_WORKGROUP_SIZE, kQuantizeWorkgroup);
    if (int8) {
      const uint64_t bytes = xQ8Bytes(std::min(step, rows), p.k);
      if (bytes > info.maxStorageBufferRange)
        throw Unsupported("linear: x in 8 bits needs " + std::to_string(bytes) + " bytes, past " + info.name +
                          "'s storage buffer limit (VKATTN_WEIGHT_KERNEL=matvec runs the float kernel)");
      extra = ExtraBuffer{MATMUL_BINDING_X_Q8,
                          &ctx.recorder().scratch(static_cast<std::size_t>(bytes), "linear's x in 8 bits")};
    }
    for (uint32_t m0 = 0; m0 < rows; m0 += step) {
      pc::MatmulParams chunk = p;
      chunk.m = std::min(step, rows - m0);
      chunk.aOffset = checkedU32("x", int64_t{p.aOffset} + int64_t{m0} * p.aStrideM);
      chunk.cOffset = checkedU32("y", int64_t{p.cOffset} + int64_t{m0} * p.cStrideM);
      chunk.resOffset = checkedU32("residual", int64_t{p.resOffset} + int64_t{m0} * p.resStrideM);
      if (int8)
        record(ctx, call, chunk, shaders::quantize_x_q8.of(call.dtype), quantizeConstants,
               groupsFor(ctx.device(), uint64_t{chunk.m} * (p.k / 32), kQuantizeWorkgroup), extra);
      // A single row (a decoded token) gets a module whose registers hold one row's sums.
      SpecConstants chunkConstants = constants;
      chunkConstants.set(MATMUL_SPEC_X_ROWS, chunk.m == 1 ? 1u : step);
      record(ctx, call, chunk, module, chunkConstants, groupsFor(ctx.device(), p.n, columns), extra);
    }
  } else if (kernel == WeightKernel::Coopmat2Workgroup) {
    // Workgroup-scope matrices, the weights decoded by the tensor loads (linear_q_coopmat2_wg.comp).
    const std::string name = "linear: the workgroup-scope cooperative-matrix-2 weight kernel ";
    const Coopmat2WorkgroupShape s = coopmat2WorkgroupShape(ctx, p.n, name);
    if (!info.cooperativeMatrix2.blockLoads || !info.bufferDeviceAddress)
      throw Unsupported(name +
                        "needs cooperative-matrix-2 block loads and bufferDeviceAddress (its decode functions "
                        "take buffer references); " +
                        info.name + " lacks " + (info.bufferDeviceAddress ? "block loads" : "bufferDeviceAddress"));
    requireLoopBudget(ctx, std::max<uint64_t>((uint64_t{p.k} + s.bk - 1) / s.bk, report),
                      "linear (coopmat2-wg weight kernel) with K = " + std::to_string(p.k));
    p.tilesM = ceilDiv(p.m, s.bm);
    p.tilesN = ceilDiv(p.n, s.bn);
    constants.set(SPEC_WORKGROUP_SIZE, s.workgroup)
        .set(MATMUL_SPEC_BK, s.bk)
        .set(FRAG_SPEC_M, s.bm)
        .set(FRAG_SPEC_N, s.bn);
    record(ctx, call, p, moduleFor(kCoopmat2Workgroup, weightDtype, call.dtype), constants,
           groupsFor(ctx.device(), uint64_t{p.tilesM} * p.tilesN));
  } else {
    const uint32_t workgroup = kTile * kTile / 16;
    if (info.maxWorkgroupInvocations < workgroup)
      throw Unsupported("linear: the tiled weight kernel needs workgroups of " + std::to_string(workgroup) +
                        " invocations; " + info.name + " allows " + std::to_string(info.maxWorkgroupInvocations));
    const uint64_t shared = uint64_t{2} * kTile * (unit + 1) * sizeof(float);
    if (shared > info.maxSharedMemoryBytes)
      throw Unsupported("linear: the tiled weight kernel needs " + std::to_string(shared) +
                        " bytes of shared memory; " + info.name + " has " + std::to_string(info.maxSharedMemoryBytes));
    requireLoopBudget(ctx, std::max<uint64_t>(p.k, report),
                      "linear (tiled weight kernel) with K = " + std::to_string(p.k));
    p.tilesM = ceilDiv(p.m, kTile);
    p.tilesN = ceilDiv(p.n, kTile);
    constants.set(SPEC_WORKGROUP_SIZE, workgroup).set(MATMUL_SPEC_ROWS, kTile);
    record(ctx, call, p, moduleFor(kTiled, weightDtype, call.dtype), constants,
           groupsFor(ctx.device(), uint64_t{p.tilesM} * p.tilesN));
  }
  ctx.flush();
}

}  // namespace vkattn::detail
