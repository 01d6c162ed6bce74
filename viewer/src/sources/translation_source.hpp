// The project's English -> French translation model as a source: every sentence is translated
// greedily on the device and its encoder self, decoder self and cross attention are shown.
#pragma once

#include <filesystem>
#include <string>

#include "sources/attention_source.hpp"
#include "vkattn/models/translation_model.hpp"

namespace vkattn::viewer {

class TranslationSource : public AttentionSource {
 public:
  TranslationSource(Context& ctx, const std::filesystem::path& dir);

  std::string name() const override { return "model"; }
  bool usesSentence() const override { return true; }
  AttentionSet compute(const std::string& sentence) override;

 private:
  Context& m_ctx;
  TranslationModel m_model;
};

}  // namespace vkattn::viewer
