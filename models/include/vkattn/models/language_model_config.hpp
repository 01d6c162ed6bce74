// The hyper-parameters of a LLaMA-family model as a GGUF file's metadata states them under
// llama.cpp's standard keys ({arch}.embedding_length, {arch}.attention.head_count, ...), with
// llama.cpp's defaults where a key is optional. Architectures: `llama` (Llama 1-3, Mistral,
// TinyLlama, SmolLM: rotation of adjacent pairs, ggml's "normal" RoPE) and `qwen2` (q/k/v biases,
// rotate-half "NeoX" RoPE).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vkattn {

class GgufFile;

struct LanguageModelConfig {
  std::string architecture;  // "llama", "qwen2" or "qwen3"
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
};

// Throws Unsupported naming general.architecture for an architecture outside the list, or the
// key of a value vkattn cannot honour (e.g. rope scaling "yarn"); InvalidArgument naming the key
// for a missing or inconsistent one.
LanguageModelConfig readLanguageModelConfig(const GgufFile& file);

}  // namespace vkattn
