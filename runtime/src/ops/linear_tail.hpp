// linear()'s step after the product (LinearOptions::ropeAppend, postNorm): checked, and either
// handed to the matrix-vector kernel, whose last workgroup runs it (shaders/include/linear_tail.glsl),
// or run as the step's own op after the product.
#pragma once

#include <push_constants.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/ops/linear_steps.hpp"

namespace vkattn::detail {

// The steps LinearOptions holds (at most one set).
struct LinearSteps {
  const std::optional<RopeAppendStep>& ropeAppend;
  const std::optional<PostNormStep>& postNorm;
};

// What the kernel binds for its tail (MATMUL_BINDING_TAIL_*), LINEAR_TAIL_NONE: nothing.
struct LinearTail {
  uint32_t kind = 0;                // LINEAR_TAIL_*
  const Buffer* counter = nullptr;  // one zeroed word
  const Buffer* params = nullptr;   // LinearTailParams
  const Buffer* keys = nullptr;
  const Buffer* values = nullptr;
  const Buffer* phase = nullptr;
  const Buffer* norm = nullptr;
  const Buffer* kNorm = nullptr;
  const Buffer* residual = nullptr;   // LINEAR_TAIL_POST_NORM's, bound as the product's residual
  const Buffer* positions = nullptr;  // LINEAR_TAIL_ROPE_APPEND's, where the device gives them
  // The tail's reports, status bits 5 and 6: the arguments, and each problem where not a NaN.
  std::vector<std::string> statusNames, statusProblems;
};

// Checks the step against y (linear()'s output, already checked; `residual`: linear() adds one) and maps it onto the
// kernel's parameters. Throws InvalidArgument naming the argument.
pc::LinearTailParams checkStep(Context& ctx, const LinearSteps& steps, bool residual, const TensorView& y);

// Whether one workgroup may take the step: ropeAppend on at most kWeightMatvecMaxRows rows.
bool fitsOneWorkgroup(const LinearSteps& steps, const pc::LinearTailParams& params);

// The checked step's buffers for the kernel (its parameters and counter uploaded).
LinearTail linearTail(Context& ctx, const LinearSteps& steps, const pc::LinearTailParams& params);

// The checked step as its own op, after a product that ran without it.
void runStepAfter(Context& ctx, const LinearSteps& steps, const TensorView& y);

}  // namespace vkattn::detail
