#include "sentencepiece_bpe.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>

#include "pair_merge.hpp"
#include "utf8_length.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::tokenizers {
namespace {

constexpr std::string_view kSpaceMark = "\xE2\x96\x81";  // U+2581, SentencePiece's space

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

  // A pair merges when it forms a token; the higher that token's score, the sooner.
  void mergeAndEmit(const std::string& text, std::vector<int32_t>& out) const {
    const auto score = [&](std::string_view left, std::string_view right) -> std::optional<double> {
      const int32_t id = m_vocab.find(std::string_view(left.data(), left.size() + right.size()));
      if (id == kNoToken) return std::nullopt;
      return static_cast<double>(m_vocab.scores[id]);
    };
    for (const std::string_view symbol : mergePairs(text, score)) emit(symbol, out);
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
