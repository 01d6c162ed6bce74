// ropeAppend()'s arguments checked and mapped onto its parameters, for its own kernel
// (rope_append.comp) and for linear()'s step after the product (LinearOptions::ropeAppend), which
// runs the same row code in the product's last workgroup.
#pragma once

#include <push_constants.h>

#include <optional>

#include "vkattn/core/context.hpp"

namespace vkattn {
struct RopeOptions;
struct HeadNorms;
}  // namespace vkattn

namespace vkattn::detail {

// Throws InvalidArgument naming the argument, as ropeAppend() documents.
pc::RopeAppendParams planRopeAppend(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                                    const TensorView& keysOut, const TensorView& valuesOut, const RopeOptions& options,
                                    const std::optional<HeadNorms>& headNorms);

// RoPE's per-pair phase steps (ropePhaseSteps) in a buffer that lives until the work has run.
const Buffer& uploadRopeSteps(Context& ctx, const RopeOptions& options, uint32_t rotaryDim);

}  // namespace vkattn::detail
