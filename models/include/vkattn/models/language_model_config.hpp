// The hyper-parameters of a LLaMA-family model as a GGUF file's metadata states them under
// llama.cpp's standard keys ({arch}.embedding_length, {arch}.attention.head_count, ...), with
// llama.cpp's defaults where a key is optional. Architectures: `llama` (Llama 1-3, Mistral,
// TinyLlama, SmolLM: rotation of adjacent pairs, ggml's "normal" RoPE), `qwen2` (q/k/v biases,
// rotate-half "NeoX" RoPE), `qwen3` (RMSNorm of each q and k head), `gemma2` (GeGLU, norms after
// attention and feed-forward too, embeddings scaled by sqrt(width), attention and final logit
// softcaps, sliding-window layers alternating with global ones) and `gemma3` (Gemma 2 without the
// softcaps, with q/k head norms, five sliding layers to each global one, and a RoPE base of their
// own for the sliding layers).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vkattn/ops/activation.hpp"

namespace vkattn {

class GgufFile;

struct LanguageModelConfig {
  std::string architecture;  // "llama", "qwen2", "qwen3", "gemma2" or "gemma3"
  std::string name;          // general.name, or empty
  int64_t layers = 0;
  int64_t modelDim = 0;
  int64_t ffnDim = 0;
  int64_t heads = 0;
  int64_t kvHeads = 0;
  int64_t headDim = 0;  // {arch}.attention.key_length, else modelDim / heads
  int64_t vocab = 0;
  int64_t contextLength = 0;  // what the model was trained for
  float normEps = 1e-5f;
  double ropeTheta = 10000.0;
  int64_t rotaryDim = 0;
  bool ropeInterleaved = true;  // adjacent pairs (llama) or halves (qwen2, qwen3)
  // Per-pair frequency divisors (rotaryDim / 2): rope_freqs.weight (Llama 3) or linear scaling.
  std::vector<double> ropeDivisors;
  bool attentionBiases = false;  // q/k/v biases (qwen2)
  bool headNorms = false;        // RMSNorm of each q and k head before RoPE (qwen3: attn_q_norm, attn_k_norm)
  bool tiedOutput = false;       // no output.weight: the token embedding projects back

  // What Gemma 2 and 3 add (the LLaMA values otherwise):
  Activation gateActivation = Activation::Silu;  // of the feed-forward's gate: SiLU (SwiGLU) or tanh GELU (GeGLU)
  bool postNorms = false;           // RMSNorm of the attention and feed-forward outputs before each residual add
  double embeddingScale = 1.0;      // token embeddings are multiplied by this (gemma: sqrt(modelDim))
  std::optional<float> queryScale;  // of the attention logits; default 1 / sqrt(headDim)
  float attentionSoftcap = 0.0f;    // c > 0: each attention logit s becomes c tanh(s / c)
  float finalSoftcap = 0.0f;        // the same on the output logits
  // Sliding layers: a query sees itself and the slidingWindow - 1 positions before it. Layer l
  // slides when l % slidingPattern < slidingPattern - 1 (0: no layer slides).
  int64_t slidingWindow = 0;
  int64_t slidingPattern = 0;
  // RoPE base of the sliding layers, which take no frequency scaling (0: ropeTheta and the
  // divisors, as the global layers).
  double slidingRopeTheta = 0.0;

  bool slides(int64_t layer) const noexcept {
    return slidingPattern > 0 && slidingWindow > 0 && layer % slidingPattern < slidingPattern - 1;
  }
};

// The values of general.architecture vkattn runs, in the order its messages list them.
inline constexpr std::array<std::string_view, 5> kLanguageModelArchitectures = {"llama", "qwen2", "qwen3", "gemma2",
                                                                                "gemma3"};
inline bool isLanguageModelArchitecture(std::string_view arch) noexcept {
  return std::find(kLanguageModelArchitectures.begin(), kLanguageModelArchitectures.end(), arch) !=
         kLanguageModelArchitectures.end();
}

// Throws Unsupported naming general.architecture for an architecture outside the list, or the
// key of a value vkattn cannot honour (e.g. rope scaling "yarn"); InvalidArgument naming the key
// for a missing or inconsistent one.
LanguageModelConfig readLanguageModelConfig(const GgufFile& file);

}  // namespace vkattn
