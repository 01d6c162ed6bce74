#include "linear_tail.hpp"

#include <kernel_interface.h>
#include <push_constants.h>

#include "checks.hpp"
#include "rope_append_plan.hpp"
#include "row_kernel.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/matmul_variant.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn::detail {
namespace {

constexpr const char* kPostNormWeight = "postNorm.weight";
constexpr const char* kPostNormResidual = "postNorm.residual";

}  // namespace

pc::LinearTailParams checkStep(Context& ctx, const LinearSteps& options, bool residual, const TensorView& y) {
  if (options.ropeAppend && options.postNorm)
    throw InvalidArgument("postNorm", "cannot follow the product together with ropeAppend (one step at most)");
  if (options.postNorm && residual)
    throw InvalidArgument("residual", "must be unset with postNorm, which adds its own residual after the norm");
  pc::LinearTailParams params{};
  if (const auto& step = options.ropeAppend) {
    if (step->q.buffer != y.buffer)
      throw InvalidArgument("ropeAppend.q", "must be a view of y's buffer (the stacked q/k/v rows y holds)");
    params.rope =
        planRopeAppend(ctx, step->q, step->k, step->v, step->keysOut, step->valuesOut, step->rope, step->headNorms);
  } else if (const auto& step = options.postNorm) {
    requireContiguous("y", y);
    requireNormParameter(ctx, kPostNormWeight, step->weight, y.dim(-1), "y", y);
    requireNormEps("postNorm.eps", step->eps);
    requireTensor(kPostNormResidual, step->residual);
    requireShape(kPostNormResidual, step->residual, y.shape);
    requireSameDtype(kPostNormResidual, step->residual, "y", y);
    requireContiguous(kPostNormResidual, step->residual);
    requireFitsDevice(ctx, kPostNormResidual, step->residual);
    params.normOffset = checkedU32(kPostNormWeight, step->weight.offset);
    params.normEps = step->eps;
    params.resOffset = checkedU32(kPostNormResidual, step->residual.offset);
    params.resStrideM = checkedU32(kPostNormResidual, y.dim(-1));
  }
  return params;
}

bool fitsOneWorkgroup(const LinearSteps& options, const pc::LinearTailParams& params) {
  return !options.ropeAppend || uint64_t{params.rope.batch} * params.rope.seq <= kWeightMatvecMaxRows;
}

LinearTail linearTail(Context& ctx, const LinearSteps& options, const pc::LinearTailParams& params) {
  LinearTail tail;
  if (const auto& step = options.ropeAppend) {
    tail.kind = LINEAR_TAIL_ROPE_APPEND;
    tail.keys = step->keysOut.buffer;
    tail.values = step->valuesOut.buffer;
    tail.phase = &uploadRopeSteps(ctx, step->rope, params.rope.rotaryDim);
    if (step->headNorms) {
      tail.norm = step->headNorms->q.buffer;
      tail.kNorm = step->headNorms->k.buffer;
    }
    if (step->rope.positions) tail.positions = step->rope.positions->buffer;
    tail.statusNames = {"headNorms", "ropeAppend.rope.positions"};  // headNorms as ropeAppend() names it
    tail.statusProblems = {"", "holds a position outside the caches' rows"};
  } else if (const auto& step = options.postNorm) {
    tail.kind = LINEAR_TAIL_POST_NORM;
    tail.norm = step->weight.buffer;
    tail.residual = step->residual.buffer;
    tail.statusNames = {kPostNormWeight, kPostNormResidual};
  }
  Recorder& recorder = ctx.recorder();
  const uint32_t zero[4] = {0, 0, 0, 0};
  tail.counter = &recorder.upload(zero, sizeof zero, "linear's finished-workgroup count");
  tail.params = &recorder.upload(&params, sizeof params, "linear's step after the product");
  return tail;
}

void runStepAfter(Context& ctx, const LinearSteps& options, const TensorView& y) {
  if (const auto& step = options.ropeAppend) {
    ropeAppend(ctx, step->q, step->k, step->v, step->keysOut, step->valuesOut, step->rope, step->headNorms);
  } else if (const auto& step = options.postNorm) {
    rmsNormNaming(ctx, y, y, {.weight = step->weight, .eps = step->eps, .residual = step->residual},
                  {"y", kPostNormWeight, kPostNormResidual});
  }
}

}  // namespace vkattn::detail
