// A double-precision CPU forward pass of a LLaMA-family decoder (LLaMA's published definition:
// RMSNorm, grouped-query attention with rotary positions, SwiGLU feed-forward, final RMSNorm and
// output projection; optional q/k/v biases as Qwen2 adds, optional RMSNorm of each query and key
// head before the rotation as Qwen3 adds; Gemma 2 and 3's GeGLU, norms after attention and
// feed-forward, scaled embeddings, query scale, attention and final logit softcaps and sliding-window
// layers with a RoPE base of their own), written from the formulas and independent of the runtime,
// for the language model's tests.
#pragma once

#include <cstdint>
#include <vector>

#include "vkattn/ops/activation.hpp"

namespace vkattn::reference {

struct DecoderLayerWeights {
  // Matrices in torch.nn.Linear layout [out, in], row-major; biases empty when absent.
  std::vector<float> attentionNorm, q, k, v, o, qBias, kBias, vBias;
  std::vector<float> qNorm, kNorm;  // [headDim] each, or empty: RMSNorm of every q and k head (Qwen3)
  std::vector<float> ffnNorm, gate, up, down;
  // [modelDim] each, or empty: RMSNorm of the attention and feed-forward outputs before their
  // residual adds (Gemma).
  std::vector<float> postAttentionNorm, postFfnNorm;
};

struct DecoderModelWeights {
  int64_t modelDim = 0, ffnDim = 0, heads = 0, kvHeads = 0, headDim = 0, vocab = 0, rotaryDim = 0;
  double normEps = 1e-5, ropeTheta = 10000.0;
  bool ropeInterleaved = true;       // rotate pairs (2i, 2i+1); else (i, i + rotaryDim / 2)
  std::vector<double> ropeDivisors;  // per pair; empty means 1
  std::vector<float> embedding;      // [vocab, modelDim]
  std::vector<DecoderLayerWeights> layers;
  std::vector<float> outputNorm;
  std::vector<float> output;  // [vocab, modelDim]
  // The gate's activation: SiLU (SwiGLU) or, for Gemma, tanh GELU (GeGLU). Gemma: embeddings times
  // embeddingScale; logits scaled by queryScale (0: 1 / sqrt(headDim)); softcaps c > 0 turn a
  // logit s into c tanh(s / c) (0: none). Layer l slides when slidingPattern > 0, slidingWindow > 0
  // and l % slidingPattern < slidingPattern - 1: its queries see themselves and the
  // slidingWindow - 1 positions before, rotated with base slidingRopeTheta (when > 0) and no
  // divisors.
  Activation gateActivation = Activation::Silu;
  double embeddingScale = 1.0, queryScale = 0.0, attentionSoftcap = 0.0, finalSoftcap = 0.0;
  int64_t slidingWindow = 0, slidingPattern = 0;
  double slidingRopeTheta = 0.0;
};

// Logits [ids.size(), vocab] of the sequence at positions 0..; when `probabilities` is given it
// receives one [heads, L, L] causal attention-probability map per layer.
std::vector<double> decoderLogitsRef(const DecoderModelWeights& model, const std::vector<int32_t>& ids,
                                     std::vector<std::vector<double>>* probabilities = nullptr);

}  // namespace vkattn::reference
