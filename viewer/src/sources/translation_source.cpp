#include "sources/translation_source.hpp"

#include <cstdio>

#include "vkattn/core/error.hpp"
#include "vkattn/models/tokenizer.hpp"

namespace vkattn::viewer {
namespace {

std::vector<std::vector<DeviceMap>> layersOf(std::vector<Tensor>& weights) {
  std::vector<std::vector<DeviceMap>> layers;
  for (Tensor& w : weights) layers.push_back(headsOfWeights(std::move(w)));
  return layers;
}

}  // namespace

TranslationSource::TranslationSource(Context& ctx, const std::filesystem::path& dir) : m_ctx(ctx), m_model(ctx, dir) {}

AttentionSet TranslationSource::compute(const std::string& sentence) {
  if (sentence.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InvalidArgument("--prompt", "is empty; type an English sentence to translate");
  TranslateOptions options;
  options.attention = true;
  options.attentionOnDevice = true;
  Translation t = m_model.translate(sentence, options);

  // Row t of the decoder maps is the step that produced target token t; its query is the token
  // before it (<bos> first), and it attends to those inputs.
  std::vector<std::string> decoderInputs = {"<bos>"};
  if (!t.targetTokens.empty())
    decoderInputs.insert(decoderInputs.end(), t.targetTokens.begin(), t.targetTokens.end() - 1);

  AttentionSet set;
  set.kinds.push_back({"cross", "Cross-attention: French (rows) over English (columns)", t.targetTokens, t.sourceTokens,
                       layersOf(t.crossWeights)});
  set.kinds.push_back(
      {"encoder", "Encoder self-attention", t.sourceTokens, t.sourceTokens, layersOf(t.encoderSelfWeights)});
  set.kinds.push_back({"decoder", "Decoder self-attention (causal)", t.targetTokens, std::move(decoderInputs),
                       layersOf(t.decoderSelfWeights)});
  set.kinds.back().causal = true;
  // Words the model does not know were read as <unk>: the labels say so, and so does the status.
  std::vector<int64_t> unknown;
  std::string unknownWords;
  for (std::size_t i = 0; i < t.sourceIds.size() && i < t.sourceTokens.size(); ++i)
    if (t.sourceIds[i] == Vocabulary::kUnk) {
      unknown.push_back(static_cast<int64_t>(i));
      unknownWords += (unknownWords.empty() ? "'" : ", '") + t.sourceTokens[i] + "'";
    }
  set.kinds[0].unknownCols = unknown;  // cross: columns are the English tokens
  set.kinds[1].unknownRows = unknown;  // encoder: both axes
  set.kinds[1].unknownCols = unknown;
  set.output = t.text;
  char timing[64];
  std::snprintf(timing, sizeof timing, "%.0f ms", t.seconds * 1000.0);
  set.status = "model: translated on " + m_ctx.info().name + " in " + timing;
  if (!unknown.empty())
    set.warning = std::to_string(unknown.size()) + " word(s) unknown to the model, read as <unk>: " + unknownWords;
  return set;
}

}  // namespace vkattn::viewer
