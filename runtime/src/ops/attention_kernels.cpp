#include "attention_kernels.hpp"

#include <kernel_interface.h>

#include "attention_shapes.hpp"
#include "checks.hpp"
#include "runtime_shader_ids.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::detail {
namespace {

// Loops left after unrolling, per invocation over its keys:
// Rows: one iteration per KEY_BLOCK keys (times the lanes in decode mode), one more when split.
KeyLoop rowsLoop(const AttentionPlan&, const AttentionKernelShape& shape) {
  return {uint64_t{shape.keyBlock} * (shape.laneKeys ? shape.workgroup : 1), 1, 1};
}

// Tiled: one per tile plus one per 4 keys inside it.
KeyLoop tiledLoop(const AttentionPlan&, const AttentionKernelShape& shape) {
  return {shape.keyBlock, 1 + shape.keyBlock / 4, 0};
}

// Fragment kernel (the emulated build keeps its loops over fragments rolled): per tile the S and
// PV products and a rescale, plus Q and the output once; the register softmax walks S's
// fragments up to three times more (masks, exponentials, P's store).
KeyLoop fragmentLoop(const AttentionPlan& plan, const AttentionKernelShape& shape) {
  const uint64_t dk = roundUp(plan.dk, shape.fragK) / shape.fragK, dv = roundUp(plan.dv, shape.fragN) / shape.fragN;
  const uint64_t cs = shape.keyBlock / shape.fragN, cp = shape.keyBlock / shape.fragK;
  const uint64_t registerSoftmax = shape.softmax != ATTN_SOFTMAX_SHARED ? 3 * cs : 0;
  return {shape.keyBlock, 1 + cs * (1 + dk) + registerSoftmax + cp * (1 + dv) + dv, dk + 2 * dv};
}

// Cooperative-matrix-2 kernel: one iteration per tile, plus its rolled loops over Q and the output
// block (FM x padded head dim over the subgroup's lanes), two of them with split-K.
KeyLoop coopmat2Loop(const AttentionPlan& plan, const AttentionKernelShape& shape) {
  const uint64_t dk = roundUp(plan.dk, shape.fragN), dv = roundUp(plan.dv, shape.fragN);
  return {shape.keyBlock, 1, (uint64_t{shape.fragM} * (dk + 2 * dv) + shape.subgroup - 1) / shape.subgroup + 8};
}

// Workgroup-scope cooperative-matrix-2 kernel: one iteration per tile, no other loop.
KeyLoop coopmat2WorkgroupLoop(const AttentionPlan&, const AttentionKernelShape& shape) {
  return {shape.keyBlock, 1, 1};
}

// Decode kernel: one per step of KEY_BLOCK keys per key group, plus the final merge's (one per
// WG_SIZE of the ROWS * Dv outputs, each walking the subgroups' records twice).
KeyLoop decodeLoop(const AttentionPlan& plan, const AttentionKernelShape& shape) {
  const uint64_t keyGroups = shape.workgroup / shape.rowLanes, subgroups = shape.workgroup / shape.subgroup;
  const uint64_t outputs =
      (uint64_t{shape.rows} * static_cast<uint64_t>(plan.dv) + shape.workgroup - 1) / shape.workgroup;
  return {uint64_t{shape.keyBlock} * keyGroups, 1, outputs * (1 + 2 * subgroups) + 1};
}

// The coopmat kernel runs at the subgroup size its cooperative-matrix flavour requires.
AttentionKernelShape coopmatShape(Context& ctx, const AttentionPlan& plan) {
  AttentionKernelShape shape = fragmentShape(ctx, plan, false);
  if (const CoopmatChoice choice = coopmatChoiceFor(ctx.info()); choice.requireSubgroupSize)
    shape.requiredSubgroupSize = choice.subgroupSize;
  return shape;
}

uint64_t fragmentRows(const AttentionKernelShape& s) {
  return uint64_t{s.fragM} * s.rows;
}
bool noPacking(const AttentionKernelShape&) {
  return false;
}

constexpr AttentionKernel kKernels[] = {
    {AttentionVariant::Rows, true, true, true, rowsShape,
     [](const Context&, const AttentionPlan& p) { return rowsShader(p); },
     [](const AttentionKernelShape& s) { return uint64_t{s.rows} * (s.laneKeys ? 1 : s.workgroup); },
     [](const AttentionKernelShape& s) { return s.laneKeys; }, rowsLoop},
    {AttentionVariant::Tiled, false, false, false, tiledShape,
     [](const Context&, const AttentionPlan& p) { return shaders::attention_tiled.of(p.dtype); },
     [](const AttentionKernelShape& s) { return uint64_t{s.workgroup / s.rowLanes}; }, noPacking, tiledLoop},
    {AttentionVariant::Coopmat, false, false, true, coopmatShape,
     [](const Context& ctx, const AttentionPlan& p) {
       const bool khr = coopmatChoiceFor(ctx.info()).flavour == CoopmatFlavour::Khr;
       return f16Only(khr ? shaders::attention_coopmat_khr_f16 : shaders::attention_coopmat_f16, p.dtype);
     },
     fragmentRows, noPacking, fragmentLoop},
    {AttentionVariant::CoopmatEmulated, false, false, true,
     [](Context& ctx, const AttentionPlan& p) { return fragmentShape(ctx, p, true); },
     [](const Context&, const AttentionPlan& p) { return shaders::attention_coopmat_emu.of(p.dtype); }, fragmentRows,
     noPacking, fragmentLoop},
    {AttentionVariant::Coopmat2, false, false, true, coopmat2Shape,
     [](const Context&, const AttentionPlan& p) { return f16Only(shaders::attention_coopmat2_f16, p.dtype); },
     fragmentRows, noPacking, coopmat2Loop},
    {AttentionVariant::Coopmat2Workgroup, false, false, true, coopmat2WorkgroupShape,
     [](const Context&, const AttentionPlan& p) { return f16Only(shaders::attention_coopmat2_wg_f16, p.dtype); },
     [](const AttentionKernelShape& s) { return uint64_t{s.fragM}; }, noPacking, coopmat2WorkgroupLoop},
    {AttentionVariant::Decode, false, true, true, decodeShape,
     [](const Context&, const AttentionPlan& p) { return shaders::attention_decode.of(p.dtype); },
     [](const AttentionKernelShape& s) { return uint64_t{s.rows}; }, [](const AttentionKernelShape&) { return true; },
     decodeLoop},
};

}  // namespace

const AttentionKernel& attentionKernel(AttentionVariant variant) {
  for (const AttentionKernel& kernel : kKernels)
    if (kernel.variant == variant) return kernel;
  throw InvalidArgument("variant", "no attention kernel is variant " + std::to_string(static_cast<int>(variant)));
}

}  // namespace vkattn::detail
