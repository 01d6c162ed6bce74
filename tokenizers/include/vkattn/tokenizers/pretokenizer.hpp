// The pre-tokenizers of byte-level BPE vocabularies (the "gpt2" model): tokenizer.ggml.pre names a list of regular
// expressions (llama.cpp's, per name), run with PCRE2 in UTF mode with Unicode properties. Each
// expression splits every piece the previous one left into its matches and the text between
// them, each piece matched on its own (a lookahead sees the piece's end as the end of text).
// Bytes that are not valid UTF-8 never match and stay in the pieces between matches.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vkattn {

class PreTokenizer {
 public:
  // Throws InvalidArgument("tokenizer.ggml.pre", ...) naming `name` when it is not one of
  // "default", "gpt-2" (also read as "gpt2"), "llama-bpe", "qwen2", "smollm".
  explicit PreTokenizer(const std::string& name);
  ~PreTokenizer();
  PreTokenizer(const PreTokenizer&) = delete;
  PreTokenizer& operator=(const PreTokenizer&) = delete;

  // The pieces of `text`, in order, together exactly `text`; each views `text`.
  std::vector<std::string_view> split(std::string_view text) const;

 private:
  class Expression;
  std::vector<std::unique_ptr<Expression>> m_expressions;
};

}  // namespace vkattn
