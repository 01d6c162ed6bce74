// Elementwise ops over contiguous f32 or f16 tensors (all operands of one call share the dtype;
// fp32 arithmetic): activations, gated activations (SwiGLU, GeGLU) and the residual add. Outputs may be one of the
// inputs (in place). NaN in an input is reported as InvalidArgument naming it, after the run.
#pragma once

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"
#include "vkattn/ops/activation.hpp"

namespace vkattn {

// y = act(x), y of x's shape.
void activation(Context& ctx, Activation act, const TensorView& x, const TensorView& y);
Tensor activation(Context& ctx, Activation act, const TensorView& x);

// y = act(gate) * up, all of one shape: SwiGLU with Activation::Silu, GeGLU with GeluTanh (Gemma)
// or Gelu.
void gatedActivation(Context& ctx, Activation act, const TensorView& gate, const TensorView& up, const TensorView& y);
Tensor gatedActivation(Context& ctx, Activation act, const TensorView& gate, const TensorView& up);

// y = silu(gate) * up, all of one shape.
void swiglu(Context& ctx, const TensorView& gate, const TensorView& up, const TensorView& y);
Tensor swiglu(Context& ctx, const TensorView& gate, const TensorView& up);

// y = a + b with b of a's shape, or b [a's last dim] added to every row.
void add(Context& ctx, const TensorView& a, const TensorView& b, const TensorView& y);
Tensor add(Context& ctx, const TensorView& a, const TensorView& b);

}  // namespace vkattn
