// The one tolerance table: how close each kernel's output must be to its double-precision
// reference, per storage type. An element passes when
//   |got - ref| <= atol + rtol * |ref| (+ dotRtol * sum_k |a_k b_k| for matrix products).
// The tests, `vkattn conformance`, `vkattn bench`, `vkattn demo` and bench/ all read it here; the
// README's accuracy table quotes it.
#pragma once

#include "vkattn/core/tensor.hpp"

namespace vkattn::reference {

struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
  double dotRtol = 0.0;  // matrix products: times the output's sum of |products|
};

enum class Checked {
  Softmax,
  LayerNorm,
  RmsNorm,
  Rope,
  Attention,         // the output O
  AttentionLse,      // the log-sum-exp output (always f32)
  AttentionWeights,  // the probabilities of attentionWeights (always f32)
  AdditiveAttention,
  AttentionLayer,  // a whole projection + attention + projection layer
  Linear,
  Elementwise,  // activations, SwiGLU, add, embedding
};

// The tolerance of `what` for outputs stored as `storage` (F32 or F16).
Tolerance toleranceFor(Checked what, DType storage);

const char* toString(Checked what) noexcept;

}  // namespace vkattn::reference
