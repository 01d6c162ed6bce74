// Writing the K/V storage formats on the device: y = x (f32) stored as f16, bf16, Q8_0 or Q4_0,
// with the host encoder's rules (core/storage_formats.hpp), so a key/value cache in those formats
// is filled where it lives. y may be a window of a larger tensor (a cache's next rows): the bytes
// around it are kept.
#pragma once

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn {

// x: contiguous f32; y: contiguous, x's element count, dtype F16, BF16, Q8_0 or Q4_0 (for Q8_0 and
// Q4_0 whole blocks of 32 starting at a block boundary). Throws InvalidArgument naming x or y;
// NaN or infinity in x bound for a block format (or a block whose scale overflows f16) is
// InvalidArgument("x") after the run.
void encodeStorage(Context& ctx, const TensorView& x, const TensorView& y);

}  // namespace vkattn
