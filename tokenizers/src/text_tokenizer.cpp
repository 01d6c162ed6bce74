#include "vkattn/tokenizers/text_tokenizer.hpp"

#include "special_tokens.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/io/utf8.hpp"

namespace vkattn {

TextTokenizer::TextTokenizer(TokenVocabulary vocab)
    : m_vocab(std::move(vocab)), m_specialIds(tokenizers::specialTokensByLength(m_vocab)) {}

std::vector<int32_t> TextTokenizer::encode(std::string_view text, EncodeOptions options) const {
  std::vector<int32_t> ids;
  if (options.addSpecial && m_vocab.addBos) ids.push_back(m_vocab.bos);
  bool startsFragment = true;
  for (const tokenizers::Fragment& fragment :
       tokenizers::splitAtSpecialTokens(text, m_vocab, m_specialIds, options.parseSpecial)) {
    if (fragment.id != kNoToken) {
      ids.push_back(fragment.id);
      startsFragment = true;
    } else {
      encodeText(fragment.text, startsFragment, ids);
      startsFragment = false;
    }
  }
  if (options.addSpecial && m_vocab.addEos) ids.push_back(m_vocab.eos);
  return ids;
}

std::string TextTokenizer::decode(std::span<const int32_t> ids, DecodeOptions options) const {
  std::string text;
  bool first = !options.continuation;
  for (const int32_t id : ids) {
    if (!m_vocab.contains(id))
      throw InvalidArgument("ids", "token id " + std::to_string(id) + " outside the vocabulary of " +
                                       std::to_string(m_vocab.size()) + " tokens");
    std::string piece;
    switch (m_vocab.types[id]) {
      case TokenType::Control:
        if (!options.renderSpecial) continue;
        piece = m_vocab.tokens[id];
        break;
      case TokenType::UserDefined:
        piece = m_vocab.tokens[id];
        break;
      default:
        piece = pieceBytes(id);
        if (first && removesLeadingSpace() && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
        break;
    }
    first = false;
    text += piece;
  }
  return text;
}

std::string tokenLabel(const TextTokenizer& tokenizer, int32_t id) {
  return io::escapeInvalidUtf8(tokenizer.decode(std::span<const int32_t>(&id, 1), {.renderSpecial = true}));
}

}  // namespace vkattn
