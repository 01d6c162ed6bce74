// A decoder-only LLaMA-family language model read from a GGUF file (architectures `llama`, `qwen2`
// and `qwen3`), run on vkattn's kernels: RMSNorm, GQA attention with RoPE (qwen3: each q and k head
// RMSNorm-ed first) and a key/value cache on the device, SwiGLU, the output projection. Weights stay in the file's type
// where the runtime's linear reads it and become f32 on the device otherwise (language_model_weights.hpp says which);
// the token embedding stays in the file and only the rows a step needs are decoded. The prompt
// runs as one batch, then one token per step.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/models/language_model_config.hpp"
#include "vkattn/models/token_sampler.hpp"
#include "vkattn/ops/attention_map.hpp"

namespace vkattn {

class TextTokenizer;

struct LanguageModelOptions {
  // Positions the key/value cache holds; 0 means the file's context length, capped at 4096. More
  // than the file's length runs (contextWarning() says what to expect); more than one layer's cache
  // can hold in a storage buffer of the device is refused by name, with the limit.
  int64_t contextLength = 0;
  // How the key/value cache stores keys and values: f32, or bf16, Q8_0 or Q4_0 (encoded on the
  // device as they are appended; the block formats need a head dim divisible by 32).
  DType kvFormat = DType::F32;
  // The feed-forward and output matrices are kept as blocks of rows of at most this many bytes
  // (0: the device's storage-buffer limit), so a large vocabulary's output projection runs where
  // buffers are small.
  uint64_t maxWeightBytes = 0;
};

// What one step of generate() produced, handed to GenerateOptions::onStep as it happens.
struct GenerationStep {
  int64_t position = 0;      // the first row this step added (0 for the prompt)
  std::vector<int32_t> ids;  // the tokens fed this step: the prompt, then one sampled token each
  int32_t next = 0;          // the token sampled from this step's logits (-1 with maxTokens 0)
  // One per layer when GenerateOptions::attention: [heads, ids.size(), position + ids.size()], the
  // attention probabilities of this step's rows over every position so far.
  std::vector<AttentionMap> attention;
  // The same rows as device tensors [1, heads, ids.size(), position + ids.size()], one per layer,
  // instead of `attention` when GenerateOptions::attentionOnDevice.
  std::vector<Tensor> weights;
};

struct GenerateOptions {
  // Generated tokens at most (stops early at end-of-sequence); 0 runs the prompt alone (its logits
  // and attention, nothing sampled).
  int64_t maxTokens = 64;
  SamplerOptions sampler;  // greedy unless temperature > 0
  bool attention = false;  // fill Generation::attention and GenerationStep::attention
  // With `attention`: hand each step's rows over as device tensors (GenerationStep::weights) and
  // leave Generation::attention empty, so that nothing is downloaded.
  bool attentionOnDevice = false;
  bool logits = false;       // fill Generation::logits
  bool parseSpecial = true;  // control-token texts in the prompt ("<|endoftext|>") become those tokens
  // Keep sampling past the end-of-sequence token (as llama.cpp's --ignore-eos): for timing a fixed
  // number of tokens.
  bool ignoreEos = false;
  // The prompt runs in passes of at most this many tokens, as llama.cpp's batches (the activations
  // of one pass held at once; the matrix units fed whole tiles); one pass where `attention` is set.
  int64_t promptChunk = 512;
  // A decoded token as one submission of dispatches recorded once (vkattn::Replay): the token, its
  // position, the caches' length and the draw's number written to the device between runs. Taken
  // where the model allows it (one q/k/v product per layer, an f32 cache, the embedding table on
  // the device) and no attention maps are asked for; false records every token afresh.
  bool replay = true;
  // Called after the prompt and after every sampled token; return false to stop.
  std::function<bool(const GenerationStep&)> onStep;
};

// Why generate() stopped.
enum class GenerationEnd {
  EndOfSequence,  // the model sampled its end-of-sequence token
  MaxTokens,      // GenerateOptions::maxTokens were generated
  ContextFull,    // the key/value cache holds no more positions (LanguageModelOptions::contextLength)
  Stopped,        // GenerateOptions::onStep returned false
};
const char* toString(GenerationEnd end) noexcept;  // "end_of_sequence", "max_tokens", "context_full", "stopped"

struct Generation {
  std::vector<int32_t> promptIds;  // bos included when the vocabulary adds it
  std::vector<int32_t> ids;        // generated tokens, end-of-sequence included when produced
  std::string text;                // ids decoded as the prompt's continuation (control tokens left out)
  bool endOfSequence = false;
  GenerationEnd end = GenerationEnd::MaxTokens;
  // One per layer: [heads, T, T] with T the positions fed: the prompt, then every sampled token but
  // the last (never fed), so promptIds.size() + max(ids.size(), 1) - 1; row t holds position t's
  // attention over positions 0..t, zeros after.
  std::vector<AttentionMap> attention;
  std::vector<float> logits;   // [steps, vocab]: the last row's logits of the prompt, then of each step
  double promptSeconds = 0;    // the prompt's forward pass
  double generateSeconds = 0;  // every later step, sampling included
  // Of generateSeconds, the time the host waited for the device (Device::waitedNs); the rest is the
  // host's own: recording, submitting, reading the logits back and sampling.
  double generateWaitSeconds = 0;
};

// A text's perplexity as llama.cpp's llama-perplexity computes it, so the figures compare: the
// tokens (bos first, as the vocabulary says) cut into chunks of `context`, each chunk a fresh
// sequence whose first token becomes bos (where the vocabulary adds one), and in each chunk the second half's tokens
// scored (positions context/2 .. context-2 predicting the next); perplexity = exp(mean negative log likelihood). Tokens
// past the last whole chunk are left out.
struct Perplexity {
  double perplexity = 0;
  double meanNll = 0;  // natural log
  int64_t scored = 0;  // tokens scored
  int64_t chunks = 0;
  int64_t context = 0;
  double seconds = 0;
};

class LanguageModel {
 public:
  // Reads the file's hyper-parameters, tokenizer and weights. Throws Unsupported naming the
  // architecture, a tensor type or a key value vkattn cannot run, InvalidArgument naming the key
  // or tensor for a malformed file.
  LanguageModel(Context& ctx, const std::filesystem::path& gguf, const LanguageModelOptions& options = {});
  ~LanguageModel();
  LanguageModel(LanguageModel&&) noexcept;
  LanguageModel& operator=(LanguageModel&&) = delete;

  const LanguageModelConfig& config() const noexcept;
  const TextTokenizer& tokenizer() const noexcept;
  int64_t contextLength() const noexcept;
  // Empty, or what to expect when contextLength() exceeds the positions the model was trained on
  // (the file's context length): text past them may turn to noise.
  std::string contextWarning() const;

  // Logits [ids.size(), vocab] of a fresh sequence, positions 0.. (one batch).
  std::vector<float> logits(std::span<const int32_t> ids);
  // The perplexity of `text` over chunks of `context` tokens (0: contextLength()); the text must
  // hold at least two chunks (InvalidArgument naming "text"), as llama-perplexity asks.
  Perplexity perplexity(std::string_view text, int64_t context = 0);
  // Tokenizes `prompt` (bos as the vocabulary says) and samples up to maxTokens more.
  Generation generate(std::string_view prompt, const GenerateOptions& options = {});
  Generation generate(std::span<const int32_t> promptIds, const GenerateOptions& options = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace vkattn
