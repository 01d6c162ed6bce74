// Every checked output's tolerance against its double-precision reference, per storage type
// (vkattn/core/tolerance.hpp says when an element passes): each op's is in its row
// (vkattn/ops/op_row.hpp), which toleranceFor reads; the outputs that are not an op's own (the
// log-sum-exp, attention weights, additive attention, a whole attention layer) have theirs here. The tests,
// `vkattn conformance`, `vkattn bench`, `vkattn demo` and bench/ all ask toleranceFor; the
// README's accuracy table quotes it.
#pragma once

#include "vkattn/core/tensor.hpp"
#include "vkattn/core/tolerance.hpp"

namespace vkattn::reference {

using vkattn::Tolerance;

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
