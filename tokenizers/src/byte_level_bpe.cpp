#include "byte_level_bpe.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "byte_to_unicode.hpp"
#include "pair_merge.hpp"
#include "utf8_length.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/tokenizers/pretokenizer.hpp"

namespace vkattn::tokenizers {
namespace {

class ByteLevelBpe final : public TextTokenizer {
 public:
  explicit ByteLevelBpe(TokenVocabulary vocab)
      : TextTokenizer(std::move(vocab)), m_pre(m_vocab.pre), m_wholePieces(m_vocab.pre == "llama-bpe") {
    m_ranks.reserve(m_vocab.merges.size());
    for (std::size_t rank = 0; rank < m_vocab.merges.size(); ++rank) {
      const std::string& merge = m_vocab.merges[rank];
      const std::size_t space = merge.find(' ', 1);
      if (space == std::string::npos || space + 1 == merge.size())
        throw InvalidArgument("tokenizer.ggml.merges", "entry " + std::to_string(rank) + " (\"" + merge +
                                                           "\") is not two texts split by a space");
      // Keyed by the pair joined with the space: the first space after the left text's first
      // character splits it, as llama.cpp splits the entry.
      m_ranks.emplace(merge, static_cast<int32_t>(rank));
    }
  }

 protected:
  void encodeText(std::string_view text, bool, std::vector<int32_t>& out) const override {
    for (const std::string_view piece : m_pre.split(text)) encodePiece(bytesToUnicode(piece), out);
  }

  std::string pieceBytes(int32_t id) const override { return unicodeToBytes(m_vocab.tokens[id]); }

 private:
  void encodePiece(const std::string& text, std::vector<int32_t>& out) const {
    if (m_wholePieces) {
      if (const int32_t id = m_vocab.find(text); id != kNoToken) {
        out.push_back(id);
        return;
      }
    }
    // The pair's place in the merge list: the earlier, the sooner it merges.
    std::string pair;
    const auto rank = [&](std::string_view left, std::string_view right) -> std::optional<double> {
      pair.assign(left).append(1, ' ').append(right);
      const auto it = m_ranks.find(pair);
      if (it == m_ranks.end()) return std::nullopt;
      return -static_cast<double>(it->second);
    };
    for (const std::string_view symbol : mergePairs(text, rank)) emit(symbol, out);
  }

  // A merged symbol that is no token (a merge list naming texts the vocabulary lacks) goes
  // character by character; a byte character that is no token becomes the unknown token.
  void emit(std::string_view symbol, std::vector<int32_t>& out) const {
    if (const int32_t id = m_vocab.find(symbol); id != kNoToken) {
      out.push_back(id);
      return;
    }
    for (std::size_t at = 0; at < symbol.size();) {
      const std::size_t length =
          std::min(utf8SequenceLength(static_cast<unsigned char>(symbol[at])), symbol.size() - at);
      int32_t id = m_vocab.find(symbol.substr(at, length));
      if (id == kNoToken) id = m_vocab.unk;
      if (id == kNoToken)
        throw InvalidArgument("text", "the vocabulary has no token for the byte character \"" +
                                          std::string(symbol.substr(at, length)) + "\" and no unknown token");
      out.push_back(id);
      at += length;
    }
  }

  PreTokenizer m_pre;
  bool m_wholePieces;
  std::unordered_map<std::string, int32_t> m_ranks;  // "left right" -> rank; the lower merges first
};

}  // namespace

std::unique_ptr<TextTokenizer> makeByteLevelBpe(TokenVocabulary vocab) {
  return std::make_unique<ByteLevelBpe>(std::move(vocab));
}

}  // namespace vkattn::tokenizers
