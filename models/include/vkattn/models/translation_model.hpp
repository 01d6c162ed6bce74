// The project's tiny English->French encoder-decoder Transformer (assets/models/en_fr.*), run on
// vkattn's own kernels: embedding, linear, LayerNorm, GELU MLP, attention (decode path with a
// KV cache). translate() returns the greedy translation and, when asked, every layer's and head's
// attention probabilities (encoder self, decoder self, cross), which the viewer draws.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/models/model_directory.hpp"
#include "vkattn/ops/attention_map.hpp"

namespace vkattn {

struct TranslateOptions {
  int64_t maxTokens = 64;  // generated tokens, <eos> included
  bool attention = false;  // fill Translation's maps
  // With `attention`: leave the maps on the device (Translation's *Weights tensors) instead of
  // downloading them into the host maps (a client that draws them on the same device).
  bool attentionOnDevice = false;
  bool logits = false;  // fill Translation::logits
};

struct Translation {
  std::string text;                       // detokenized French
  std::vector<std::string> sourceTokens;  // encoder input tokens as typed, <eos> last
  std::vector<int32_t> sourceIds;         // their ids (<unk> for words the model does not know)
  std::vector<std::string> targetTokens;  // generated tokens, <eos> last when produced
  std::vector<int32_t> targetIds;
  // One per layer. encoderSelf: [H, S, S]; decoderSelf: [H, T, T] (causal); cross: [H, T, S],
  // where S = sourceTokens.size() and row t of the decoder maps is the step that produced
  // targetTokens[t] (its query is the previous token, <bos> first).
  std::vector<AttentionMap> encoderSelf;
  std::vector<AttentionMap> decoderSelf;
  std::vector<AttentionMap> cross;
  // The same maps as device tensors [1, H, rows, cols], per layer, with attentionOnDevice.
  std::vector<Tensor> encoderSelfWeights;
  std::vector<Tensor> decoderSelfWeights;
  std::vector<Tensor> crossWeights;
  // [T, vocab] f32 row-major: the logits of each decoding step.
  std::vector<float> logits;
  double seconds = 0;  // wall time of translate(), tokenisation to text
};

class TranslationModel {
 public:
  // dir holds en_fr.safetensors, en_fr.src.txt and en_fr.tgt.txt (defaultModelDirectory()).
  TranslationModel(Context& ctx, const std::filesystem::path& dir);
  ~TranslationModel();
  TranslationModel(TranslationModel&&) noexcept;
  TranslationModel& operator=(TranslationModel&&) = delete;

  Translation translate(const std::string& english, const TranslateOptions& options = {});

  int64_t layersEncoder() const;
  int64_t layersDecoder() const;
  int64_t heads() const;
  int64_t targetVocabSize() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace vkattn
