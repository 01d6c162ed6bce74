// LLaMA-family models with random weights, written as GGUF files the way a converter writes them,
// for the double-precision reference to check vkattn against (the language-model tests) and for
// measuring generation at real model sizes (`vkattn bench generate`) where no weights may be
// downloaded. The weights come back as the file holds them (quantized, then decoded), so the
// reference computes exactly what vkattn was given.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "vkattn/io/ggml_types.hpp"
#include "vkattn/io/gguf_value.hpp"
#include "vkattn/reference/language_model_reference.hpp"

namespace vkattn::measure {

// The tests' vocabulary: the control and byte tokens and 21 pieces.
inline constexpr int64_t kRandomModelDefaultVocab = 3 + 256 + 21;

struct RandomModelSpec {
  // llama, qwen2 (q/k/v biases), qwen3 (q/k head norms), gemma2 or gemma3 (GeGLU, post-norms,
  // scaled embeddings; gemma2 softcaps, gemma3 q/k head norms).
  std::string arch = "llama";
  int64_t layers = 2, modelDim = 64, ffnDim = 96, heads = 4, kvHeads = 2, headDim = 16, rotaryDim = 16;
  double theta = 10000.0;
  bool tied = false;
  bool ropeFreqs = false;  // Llama 3's per-pair divisors as rope_freqs.weight
  GgmlType matrices = GgmlType::F32;
  // A SentencePiece vocabulary of this many tokens: <unk> <s> </s>, 256 bytes, then pieces.
  int64_t vocab = kRandomModelDefaultVocab;
  int64_t contextLength = 256;
  // The output row of </s> all zeros, so that greedy decoding on random weights (whose largest
  // logit is far above 0) does not end early: for timing a fixed number of tokens.
  bool neverEndsSequence = false;
  // Gemma: the sliding layers' window (written when > 0; Gemma 2 then reads 4096), and the
  // attention and final logit softcaps (written when set; Gemma 2 then reads 50 and 30).
  int64_t slidingWindow = 0;
  std::optional<float> attentionSoftcap, finalSoftcap;
};

// The smallest vocabulary a spec may have: the control and byte tokens and the pieces the tests'
// texts use.
inline constexpr int64_t kRandomModelMinVocab = 3 + 256 + 9;

struct RandomModelFile {
  std::string dropTensor;                      // leave this tensor out (an incomplete file)
  std::map<std::string, GgufValue> overrides;  // metadata replacing or added to what the spec says
  bool keepWeights = true;                     // false: return the shape only (no reference to feed)
};

// Writes the model to `path` and returns its weights as stored (empty matrices unless
// keepWeights). Tensors are drawn from `seed` in file order, so a spec and seed always give the
// same file. InvalidArgument names the spec field that cannot make a model.
reference::DecoderModelWeights writeRandomLanguageModel(const RandomModelSpec& spec, uint32_t seed,
                                                        const std::filesystem::path& path,
                                                        const RandomModelFile& file = {});

}  // namespace vkattn::measure
