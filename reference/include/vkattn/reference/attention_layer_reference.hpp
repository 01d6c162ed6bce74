// Double-precision reference of a multi-head attention layer: Q/K/V projections (with bias), optional
// rotate-half RoPE (theta 10000; queries at the newest positions), MHA/GQA/MQA, optional causal
// mask aligned to the bottom-right corner, softmax, output projection.
#pragma once

#include <cstdint>
#include <vector>

namespace vkattn::reference {

struct AttentionLayerProblem {
  int64_t d = 96, heads = 6, kvHeads = 6, batch = 2, len = 7, sourceLen = 7;
  bool causal = false, rope = false, cross = false;
};

struct AttentionLayerHostWeights {
  std::vector<float> q, k, v, o, qb, kb, vb, ob;
};

// The layer's output [B, L, d] for x [B, L, d] and src [B, S, d] (src = x for self-attention);
// probabilities [B, H, L, S] into probs when given. Weights in torch nn.Linear layout.
std::vector<double> attentionLayerRef(const AttentionLayerProblem& c, const AttentionLayerHostWeights& w,
                                      const std::vector<float>& x, const std::vector<float>& src,
                                      std::vector<double>* probs);

}  // namespace vkattn::reference
