#include "special_tokens.hpp"

#include <algorithm>

namespace vkattn::tokenizers {

std::vector<int32_t> specialTokensByLength(const TokenVocabulary& vocab) {
  std::vector<int32_t> ids;
  for (int32_t id = 0; id < vocab.size(); ++id) {
    const TokenType type = vocab.types[id];
    if ((type == TokenType::UserDefined || type == TokenType::Control || type == TokenType::Unknown) &&
        !vocab.tokens[id].empty())
      ids.push_back(id);
  }
  std::stable_sort(ids.begin(), ids.end(),
                   [&](int32_t a, int32_t b) { return vocab.tokens[a].size() > vocab.tokens[b].size(); });
  return ids;
}

std::vector<Fragment> splitAtSpecialTokens(std::string_view text, const TokenVocabulary& vocab,
                                           const std::vector<int32_t>& specials, bool parseSpecial) {
  std::vector<Fragment> fragments;
  if (!text.empty()) fragments.push_back({kNoToken, text});
  for (const int32_t id : specials) {
    if (!parseSpecial && vocab.types[id] != TokenType::UserDefined) continue;
    const std::string_view special = vocab.tokens[id];
    std::vector<Fragment> next;
    next.reserve(fragments.size());
    for (const Fragment& fragment : fragments) {
      if (fragment.id != kNoToken) {
        next.push_back(fragment);
        continue;
      }
      std::string_view rest = fragment.text;
      for (std::size_t at = rest.find(special); at != std::string_view::npos; at = rest.find(special)) {
        if (at > 0) next.push_back({kNoToken, rest.substr(0, at)});
        next.push_back({id, special});
        rest.remove_prefix(at + special.size());
      }
      if (!rest.empty()) next.push_back({kNoToken, rest});
    }
    fragments = std::move(next);
  }
  return fragments;
}

}  // namespace vkattn::tokenizers
