// Embedding lookup: out[i..., :] = scale * table[ids[i...], :], plus an optional learned position
// table. table is [V, D] (contiguous): f32 or f16, out of its dtype (or f32 from an f16 table); or
// a block format (Q8_0, Q4_0, Q4_K, Q5_K, Q6_K: a language model's token_embd as the file stores
// it), decoded as it is gathered, out f32. ids i32 of any shape (contiguous), out ids.shape + [D].
// An id outside [0, V) is never read: its row comes out as zeros and the call throws
// InvalidArgument naming "ids" after the run (so does NaN in table or positions).
#pragma once

#include <cstdint>
#include <optional>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn {

struct EmbeddingOptions {
  // [P, D] of table's dtype, contiguous: out[..., t, :] += positions[positionOffset + t, :] where
  // t indexes ids' last dim; needs positionOffset + ids.dim(-1) <= P.
  std::optional<TensorView> positions;
  int64_t positionOffset = 0;
  // Each row's factor (Gemma's sqrt(d)), before positions are added; finite.
  float scale = 1.0f;
};

void embedding(Context& ctx, const TensorView& table, const TensorView& ids, const TensorView& out,
               const EmbeddingOptions& options = {});
Tensor embedding(Context& ctx, const TensorView& table, const TensorView& ids, const EmbeddingOptions& options = {});

}  // namespace vkattn
