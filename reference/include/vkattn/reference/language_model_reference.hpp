// A double-precision CPU forward pass of a LLaMA-family decoder (LLaMA's published definition:
// RMSNorm, grouped-query attention with rotary positions, SwiGLU feed-forward, final RMSNorm and
// output projection; optional q/k/v biases as Qwen2 adds, optional RMSNorm of each query and key
// head before the rotation as Qwen3 adds), written from the formulas and
// independent of the runtime, for the language model's tests.
#pragma once

#include <cstdint>
#include <vector>

namespace vkattn::reference {

struct DecoderLayerWeights {
  // Matrices in torch.nn.Linear layout [out, in], row-major; biases empty when absent.
  std::vector<float> attentionNorm, q, k, v, o, qBias, kBias, vBias;
  std::vector<float> qNorm, kNorm;  // [headDim] each, or empty: RMSNorm of every q and k head (Qwen3)
  std::vector<float> ffnNorm, gate, up, down;
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
};

// Logits [ids.size(), vocab] of the sequence at positions 0..; when `probabilities` is given it
// receives one [heads, L, L] causal attention-probability map per layer.
std::vector<double> decoderLogitsRef(const DecoderModelWeights& model, const std::vector<int32_t>& ids,
                                     std::vector<std::vector<double>>* probabilities = nullptr);

}  // namespace vkattn::reference
