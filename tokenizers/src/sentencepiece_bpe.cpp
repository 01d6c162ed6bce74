#include "sentencepiece_bpe.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <queue>

#include "utf8_length.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::tokenizers {
namespace {

constexpr std::string_view kSpaceMark = "\xE2\x96\x81";  // U+2581, SentencePiece's space

// A run of characters merged so far; a doubly linked list over the text's characters, where a
// merged-away symbol keeps length 0.
struct Symbol {
  int prev, next;
  std::size_t start, length;
};

struct Candidate {
  int left, right;
  float score;
  std::size_t length;  // of the merged text: a candidate whose symbols changed since is stale
};

// Highest score first; among equal scores, the leftmost pair.
struct LowerPriority {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  }
};

class SentencePieceBpe final : public TextTokenizer {
 public:
  explicit SentencePieceBpe(TokenVocabulary vocab) : TextTokenizer(std::move(vocab)) {
    for (int byte = 0; byte < 256; ++byte) m_byteIds[byte] = byteToken(static_cast<unsigned char>(byte));
  }

 protected:
  void encodeText(std::string_view text, bool startsFragment, std::vector<int32_t>& out) const override {
    std::string escaped;
    if (m_vocab.addSpacePrefix && startsFragment) escaped += kSpaceMark;
    for (const char c : text) {
      if (c == ' ')
        escaped += kSpaceMark;
      else
        escaped += c;
    }
    mergeAndEmit(escaped, out);
  }

  std::string pieceBytes(int32_t id) const override {
    const std::string& token = m_vocab.tokens[id];
    switch (m_vocab.types[id]) {
      case TokenType::Byte: {
        unsigned value = 0;
        if (token.size() == 6 && std::sscanf(token.c_str(), "<0x%2X>", &value) == 1)
          return std::string(1, static_cast<char>(value));
        return token;
      }
      case TokenType::Unknown:
        return "\xE2\x96\x85";  // U+2585, what llama.cpp prints for the unknown token
      default: {
        std::string piece;
        for (std::size_t i = 0; i < token.size();) {
          if (token.compare(i, kSpaceMark.size(), kSpaceMark) == 0) {
            piece += ' ';
            i += kSpaceMark.size();
          } else {
            piece += token[i++];
          }
        }
        return piece;
      }
    }
  }

  bool removesLeadingSpace() const noexcept override { return m_vocab.addSpacePrefix; }

 private:
  int32_t byteToken(unsigned char byte) const {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", byte);
    if (const int32_t id = m_vocab.find(hex); id != kNoToken) return id;
    if (const int32_t id = m_vocab.find(std::string(1, static_cast<char>(byte))); id != kNoToken) return id;
    return m_vocab.unk;
  }

  void tryPair(const std::string& text, const std::vector<Symbol>& symbols, int left, int right,
               std::priority_queue<Candidate, std::vector<Candidate>, LowerPriority>& queue) const {
    if (left < 0 || right < 0) return;
    const std::size_t length = symbols[left].length + symbols[right].length;
    const int32_t id = m_vocab.find(std::string_view(text).substr(symbols[left].start, length));
    if (id == kNoToken) return;
    queue.push({left, right, m_vocab.scores[id], length});
  }

  void mergeAndEmit(const std::string& text, std::vector<int32_t>& out) const {
    std::vector<Symbol> symbols;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t length = std::min(utf8SequenceLength(static_cast<unsigned char>(text[at])), text.size() - at);
      const int index = static_cast<int>(symbols.size());
      symbols.push_back({index - 1, at + length == text.size() ? -1 : index + 1, at, length});
      at += length;
    }
    std::priority_queue<Candidate, std::vector<Candidate>, LowerPriority> queue;
    for (int i = 1; i < static_cast<int>(symbols.size()); ++i) tryPair(text, symbols, i - 1, i, queue);
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
      tryPair(text, symbols, left.prev, best.left, queue);
      tryPair(text, symbols, best.left, left.next, queue);
    }
    for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[i].next)
      emit(std::string_view(text).substr(symbols[i].start, symbols[i].length), out);
  }

  // Every merged symbol is a token; a single character may not be, and then goes byte by byte.
  void emit(std::string_view symbol, std::vector<int32_t>& out) const {
    if (const int32_t id = m_vocab.find(symbol); id != kNoToken) {
      out.push_back(id);
      return;
    }
    for (const char c : symbol) {
      const int32_t id = m_byteIds[static_cast<unsigned char>(c)];
      if (id == kNoToken)
        throw InvalidArgument("text",
                              "byte " + std::to_string(static_cast<unsigned char>(c)) +
                                  " has no token: the vocabulary has neither its <0x..> token nor an unknown token");
      out.push_back(id);
    }
  }

  std::array<int32_t, 256> m_byteIds{};
};

}  // namespace

std::unique_ptr<TextTokenizer> makeSentencePieceBpe(TokenVocabulary vocab) {
  return std::make_unique<SentencePieceBpe>(std::move(vocab));
}

}  // namespace vkattn::tokenizers
