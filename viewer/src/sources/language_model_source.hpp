// A LLaMA-family GGUF model as a source: the sentence is the prompt, the model generates greedily,
// and the self-attention of every layer and head grows a row per token while it does (each step is
// published as it comes). The maps stay on the device: each step's rows are copied into the
// growing per-head maps there. Tokens on both axes as the model's tokenizer split them.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sources/attention_source.hpp"
#include "vkattn/models/language_model.hpp"

namespace vkattn::viewer {

class LanguageModelSource : public AttentionSource {
 public:
  LanguageModelSource(Context& ctx, const std::filesystem::path& gguf, int64_t maxTokens);

  std::string name() const override { return m_name; }
  bool usesSentence() const override { return true; }
  AttentionSet compute(const std::string& prompt) override;

 private:
  Context& m_ctx;
  std::string m_name;
  LanguageModel m_model;
  int64_t m_maxTokens;
};

}  // namespace vkattn::viewer
