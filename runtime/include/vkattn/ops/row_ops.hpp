// Row operations over the last dimension: softmax, LayerNorm, RMSNorm, argmax. Inputs are contiguous
// f32 or f16 tensors; outputs have the input's shape and dtype (in place is allowed), argmax's
// the input's shape without its last dim, in int32.
#pragma once

#include <optional>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn {

struct SoftmaxOptions {
  float scale = 1.0f;
  // Additive f32 mask whose shape broadcasts to x's (numpy rules, rank <= 4, last dim equal).
  // -inf removes a column; a row with every column removed comes out as zeros.
  std::optional<TensorView> mask;
};

struct LayerNormOptions {
  std::optional<TensorView> weight;  // [cols], x's dtype
  std::optional<TensorView> bias;    // [cols], x's dtype
  float eps = 1e-5f;
};

struct RmsNormOptions {
  std::optional<TensorView> weight;  // [cols], x's dtype
  float eps = 1e-6f;
  // Added to the norm: y = residual + rmsNorm(x) (a post-norm model's x + norm(sublayer(x)) in one
  // pass). x's shape and dtype; it may be y itself.
  std::optional<TensorView> residual;
};

void softmax(Context& ctx, const TensorView& x, const TensorView& y, const SoftmaxOptions& options = {});
Tensor softmax(Context& ctx, const TensorView& x, const SoftmaxOptions& options = {});

void layerNorm(Context& ctx, const TensorView& x, const TensorView& y, const LayerNormOptions& options = {});
Tensor layerNorm(Context& ctx, const TensorView& x, const LayerNormOptions& options = {});

void rmsNorm(Context& ctx, const TensorView& x, const TensorView& y, const RmsNormOptions& options = {});
Tensor rmsNorm(Context& ctx, const TensorView& x, const RmsNormOptions& options = {});

// ids[...] = the index of the largest value along x's last dim, the lowest index among equal
// values (a language model's greedy next token, as TokenSampler picks it); a row of -inf gives 0.
// ids: int32 of x's shape without its last dim (a scalar shape [1] for a 1-d x), contiguous. NaN
// in x is reported naming x.
void argmax(Context& ctx, const TensorView& x, const TensorView& ids);
Tensor argmax(Context& ctx, const TensorView& x);

// y = x, elementwise, for same-sized tensors whose byte size is a multiple of 16: the memory
// bandwidth baseline of the benchmarks.
void copy(Context& ctx, const TensorView& x, const TensorView& y);

}  // namespace vkattn
