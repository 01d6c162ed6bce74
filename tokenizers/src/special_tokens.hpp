// Splitting text at special tokens before a model's own algorithm sees it, as llama.cpp does:
// each special token, longest text first, is cut out of every stretch of plain text left.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "vkattn/tokenizers/token_vocabulary.hpp"

namespace vkattn::tokenizers {

// A stretch of the input: a special token's id, or plain text (id kNoToken) viewing the input.
struct Fragment {
  int32_t id = kNoToken;
  std::string_view text;
};

// The user-defined, control and unknown tokens with non-empty text, longest text first (ties by id).
std::vector<int32_t> specialTokensByLength(const TokenVocabulary& vocab);

// `text` cut at the occurrences of `specials` (leftmost first); control and unknown tokens only
// when `parseSpecial`. The plain fragments view `text`.
std::vector<Fragment> splitAtSpecialTokens(std::string_view text, const TokenVocabulary& vocab,
                                           const std::vector<int32_t>& specials, bool parseSpecial);

}  // namespace vkattn::tokenizers
