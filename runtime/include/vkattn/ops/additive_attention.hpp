// Additive (Bahdanau) attention, seed 001: score(i, j) = v^T tanh(W_q q_i + W_k k_j), weights =
// softmax over j of the masked scores, out_i = sum_j weights(i, j) value_j. Query and key may
// have different feature sizes (the reason to use it). f32 only. The Lq x Lk weights are formed
// in memory (this is the form the documents use for RNN-length sequences), so they can also be
// returned.
#pragma once

#include <optional>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn {

struct AdditiveAttentionOptions {
  bool causal = false;                   // query i sees keys j <= i
  std::optional<TensorView> bias;        // f32 [B|1, Lq|1, Lk] added to the scores
  std::optional<TensorView> keepMask;    // i32 [B|1, Lq|1, Lk], 0 removes the key
  std::optional<TensorView> keyLengths;  // i32 [B]: keys j >= keyLengths[b] are padding
  // f32 [B, Lq, Lk], contiguous: receives the attention weights (rows with every key removed
  // are zeros, and so is their output).
  std::optional<TensorView> weights;
};

// query [B, Lq, Dq], key [B, Lk, Dk], value [B, Lk, Dv], w_q [A, Dq], w_k [A, Dk], v [A]
// (Linear-layer layout: y = x W^T), all contiguous f32; out [B, Lq, Dv].
void additiveAttention(Context& ctx, const TensorView& query, const TensorView& key, const TensorView& value,
                       const TensorView& wq, const TensorView& wk, const TensorView& v, const TensorView& out,
                       const AdditiveAttentionOptions& options = {});
Tensor additiveAttention(Context& ctx, const TensorView& query, const TensorView& key, const TensorView& value,
                         const TensorView& wq, const TensorView& wk, const TensorView& v,
                         const AdditiveAttentionOptions& options = {});

}  // namespace vkattn
