// The synthetic source used when nothing is loaded: structured queries and keys (position codes
// plus sink features) whose attention weights vkattn computes on the device, giving maps with
// known shapes: diagonal, previous/next token, sinks on the first or last token, broad heads,
// and a cross-attention alignment with the adjective-noun reordering of English -> French.
#pragma once

#include <string>
#include <vector>

#include "sources/attention_source.hpp"

namespace vkattn::viewer {

// Words and punctuation of `sentence`, split at spaces with trailing punctuation apart.
std::vector<std::string> splitWords(const std::string& sentence);

class DemoSource : public AttentionSource {
 public:
  // `length` 0: maps over the sentence's words (cross, encoder and decoder kinds). Otherwise one
  // self-attention kind over `length` numbered tokens, to try zooming on long sequences.
  DemoSource(Context& ctx, int64_t length = 0) : m_ctx(ctx), m_length(length) {}

  std::string name() const override { return m_length ? "demo:" + std::to_string(m_length) : "demo"; }
  bool usesSentence() const override { return m_length == 0; }
  AttentionSet compute(const std::string& sentence) override;

 private:
  Context& m_ctx;
  int64_t m_length;
};

}  // namespace vkattn::viewer
