#include "sources/translation_source.hpp"

#include <cstdio>

#include "vkattn/error.hpp"

namespace vkattn::viewer {

TranslationSource::TranslationSource(Context& ctx, const std::filesystem::path& dir) : m_ctx(ctx), m_model(ctx, dir) {}

AttentionSet TranslationSource::compute(const std::string& sentence) {
  if (sentence.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InvalidArgument("sentence", "is empty; type an English sentence to translate");
  TranslateOptions options;
  options.attention = true;
  Translation t = m_model.translate(sentence, options);

  // Row t of the decoder maps is the step that produced target token t; its query is the token
  // before it (<bos> first), and it attends to those inputs.
  std::vector<std::string> decoderInputs = {"<bos>"};
  if (!t.targetTokens.empty())
    decoderInputs.insert(decoderInputs.end(), t.targetTokens.begin(), t.targetTokens.end() - 1);

  AttentionSet set;
  AttentionKind cross;
  cross.id = "cross";
  cross.title = "Cross-attention: French (rows) over English (columns)";
  cross.rowTokens = t.targetTokens;
  cross.colTokens = t.sourceTokens;
  cross.layers = std::move(t.cross);
  AttentionKind encoder;
  encoder.id = "encoder";
  encoder.title = "Encoder self-attention";
  encoder.rowTokens = t.sourceTokens;
  encoder.colTokens = t.sourceTokens;
  encoder.layers = std::move(t.encoderSelf);
  AttentionKind decoder;
  decoder.id = "decoder";
  decoder.title = "Decoder self-attention (causal)";
  decoder.rowTokens = t.targetTokens;
  decoder.colTokens = decoderInputs;
  decoder.layers = std::move(t.decoderSelf);
  set.kinds = {std::move(cross), std::move(encoder), std::move(decoder)};
  set.output = t.text;
  char timing[64];
  std::snprintf(timing, sizeof timing, "%.0f ms", t.seconds * 1000.0);
  set.status = "model: translated on " + m_ctx.info().name + " in " + timing;
  return set;
}

}  // namespace vkattn::viewer
