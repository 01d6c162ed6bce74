// The one way every op records its kernel: the pipeline for an OpKernel (module, bindings, the
// push-constant struct's size, specialization constants, a required subgroup size), a status slot
// naming the inputs whose NaN (or other bad values) the kernel reports, bound at the report's
// binding with its index written to the push constants' statusSlot, then one dispatch. Ops then
// call ctx.flush(), which submits unless a Batch is open; allocatingCall gives every op's
// "allocate the output and call" form.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "checks.hpp"
#include "runtime_shader_ids.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/core/recorder.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn::detail {

struct OpKernel {
  ShaderId module;  // shaders::<id>, or shaders::<name>.of(dtype) for the f32/f16 pair
  uint32_t bindingCount = 0;
  SpecConstants constants;
  uint32_t requiredSubgroupSize = 0;
};

// Bit i of the kernel's status word becomes InvalidArgument naming inputs[i] (with problems[i], or
// "input contains NaN").
struct StatusReport {
  std::string op;
  std::vector<std::string> inputs;
  uint32_t binding = 0;
  std::vector<std::string> problems = {};
};

template <typename Push>
const Pipeline& opPipeline(Context& ctx, const OpKernel& kernel) {
  return ctx.pipelines().get(
      {kernel.module.name, kernel.bindingCount, sizeof(Push), kernel.constants, kernel.requiredSubgroupSize});
}

template <typename Push>
void recordOp(Context& ctx, const OpKernel& kernel, std::initializer_list<Bind> buffers, Push& push, GroupCount groups,
              const StatusReport& report) {
  const Pipeline& pipeline = opPipeline<Push>(ctx, kernel);
  Recorder& rec = ctx.recorder();
  const StatusSlot status = rec.statusSlot(report.op, report.inputs, report.problems);
  push.statusSlot = status.slot;
  std::vector<Bind> all(buffers);
  all.push_back({report.binding, status.buffer});
  rec.dispatch(pipeline, all, &push, sizeof(Push), groups);
}

// A kernel that reads nothing it could report on (copies, the split-K combine).
template <typename Push>
void recordOp(Context& ctx, const OpKernel& kernel, std::initializer_list<Bind> buffers, const Push& push,
              GroupCount groups) {
  ctx.recorder().dispatch(opPipeline<Push>(ctx, kernel), buffers, push, groups);
}

// An op's allocating form: a new tensor of `shape` and `dtype`, filled by `into(tensor)`.
template <typename Into>
Tensor allocatingCall(Context& ctx, Shape shape, DType dtype, Into&& into) {
  Tensor out = ctx.tensor(std::move(shape), dtype);
  std::forward<Into>(into)(out);
  return out;
}

// The allocating form of an op whose output is shaped like its input x.
template <typename Into>
Tensor allocatingLike(Context& ctx, const TensorView& x, Into&& into) {
  requireTensor("x", x);
  return allocatingCall(ctx, x.shape, x.dtype, std::forward<Into>(into));
}

}  // namespace vkattn::detail
