// The translation model's word-level tokenizer and vocabularies (assets/models/en_fr.*.txt).
// Rules, shared with tools/models/translation/tokenizer.py: split on ASCII whitespace; peel trailing
// ".,?!;:" off each chunk as one-character tokens; split a chunk after its first apostrophe when
// more follows ("L'accord" -> "L'", "accord"). Detokenizing joins with spaces, drops the space
// before punctuation and after a token ending in an apostrophe. Bytes beyond ASCII (UTF-8) pass
// through untouched.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace vkattn {

std::vector<std::string> tokenizeWords(const std::string& text);
std::string detokenizeWords(const std::vector<std::string>& tokens);

// One token per line; the line index is the id. Ids 0..3 are <pad>, <bos>, <eos>, <unk>.
class Vocabulary {
 public:
  static constexpr int32_t kPad = 0, kBos = 1, kEos = 2, kUnk = 3;

  static Vocabulary load(const std::filesystem::path& path);
  explicit Vocabulary(std::vector<std::string> tokens);

  int32_t id(const std::string& token) const;  // kUnk when absent
  const std::string& token(int32_t id) const;  // throws InvalidArgument for an id out of range
  int64_t size() const noexcept { return static_cast<int64_t>(m_tokens.size()); }

 private:
  std::vector<std::string> m_tokens;
  std::unordered_map<std::string, int32_t> m_ids;
};

}  // namespace vkattn
