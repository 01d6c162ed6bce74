#include "byte_level_bpe.hpp"

#include <algorithm>
#include <queue>
#include <unordered_map>

#include "byte_to_unicode.hpp"
#include "utf8_length.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/tokenizers/pretokenizer.hpp"

namespace vkattn::tokenizers {
namespace {

struct Symbol {
  int prev, next;
  std::size_t start, length;
};

struct Candidate {
  int left, right;
  int32_t rank;
  std::size_t length;  // of the merged text: a candidate whose symbols changed since is stale
};

// Lowest rank first; among equal ranks, the leftmost pair.
struct LowerPriority {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
  }
};

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
  int32_t rankOf(const std::string& text, const Symbol& left, const Symbol& right) const {
    std::string pair;
    pair.reserve(left.length + right.length + 1);
    pair.append(text, left.start, left.length).append(1, ' ').append(text, right.start, right.length);
    const auto it = m_ranks.find(pair);
    return it == m_ranks.end() ? -1 : it->second;
  }

  void encodePiece(const std::string& text, std::vector<int32_t>& out) const {
    if (m_wholePieces) {
      if (const int32_t id = m_vocab.find(text); id != kNoToken) {
        out.push_back(id);
        return;
      }
    }
    std::vector<Symbol> symbols;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t length = std::min(utf8SequenceLength(static_cast<unsigned char>(text[at])), text.size() - at);
      const int index = static_cast<int>(symbols.size());
      symbols.push_back({index - 1, at + length == text.size() ? -1 : index + 1, at, length});
      at += length;
    }
    std::priority_queue<Candidate, std::vector<Candidate>, LowerPriority> queue;
    const auto tryPair = [&](int left, int right) {
      if (left < 0 || right < 0) return;
      const int32_t rank = rankOf(text, symbols[left], symbols[right]);
      if (rank >= 0) queue.push({left, right, rank, symbols[left].length + symbols[right].length});
    };
    for (int i = 1; i < static_cast<int>(symbols.size()); ++i) tryPair(i - 1, i);
    while (!queue.empty()) {
      const Candidate best = queue.top();
      queue.pop();
      Symbol& left = symbols[best.left];
      Symbol& right = symbols[best.right];
      if (left.length == 0 || right.length == 0 || left.length + right.length != best.length) continue;
      left.length += right.length;
      right.length = 0;
      left.next = right.next;
      if (right.next >= 0) symbols[right.next].prev = best.left;
      tryPair(left.prev, best.left);
      tryPair(best.left, left.next);
    }
    for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[i].next)
      emit(std::string_view(text).substr(symbols[i].start, symbols[i].length), out);
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
