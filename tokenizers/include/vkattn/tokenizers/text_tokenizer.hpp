// Text to token ids and back, as llama.cpp tokenizes for the model a GGUF file holds. A
// TextTokenizer owns a copy of the vocabulary and keeps no state between calls: one object may be
// used from several threads at once.
//
// Encoding: special tokens are split out first (user-defined ones always, control and unknown
// ones when EncodeOptions::parseSpecial), the text between them goes through the model's
// algorithm, and bos/eos are added as the vocabulary says when EncodeOptions::addSpecial.
// Decoding: the exact bytes back, so decode(encode(s)) == s for any UTF-8 s; control tokens give
// nothing unless DecodeOptions::renderSpecial; the space that "llama" encoding puts in front of
// the text is taken off again.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vkattn/tokenizers/token_vocabulary.hpp"

namespace vkattn {

struct EncodeOptions {
  bool addSpecial = true;     // bos / eos where the vocabulary's add_bos_token / add_eos_token say
  bool parseSpecial = false;  // control token texts ("<s>", "<|endoftext|>") in the text become those tokens
};

struct DecodeOptions {
  bool renderSpecial = false;  // control tokens give their text instead of nothing
  // The ids continue earlier text (a generation after its prompt): the first piece keeps the
  // leading space that decoding a sequence of its own takes off (SentencePiece's space prefix).
  bool continuation = false;
};

class TextTokenizer {
 public:
  virtual ~TextTokenizer() = default;
  TextTokenizer(const TextTokenizer&) = delete;
  TextTokenizer& operator=(const TextTokenizer&) = delete;

  std::vector<int32_t> encode(std::string_view text, EncodeOptions options = {}) const;
  // Throws InvalidArgument("ids", ...) naming an id outside the vocabulary.
  std::string decode(std::span<const int32_t> ids, DecodeOptions options = {}) const;

  const TokenVocabulary& vocabulary() const noexcept { return m_vocab; }

 protected:
  explicit TextTokenizer(TokenVocabulary vocab);
  // Appends the ids of text that holds no special token. `startsFragment` is true at the start of
  // the input and right after a special token.
  virtual void encodeText(std::string_view text, bool startsFragment, std::vector<int32_t>& out) const = 0;
  // The bytes a normal, byte or unknown token stands for.
  virtual std::string pieceBytes(int32_t id) const = 0;
  // Whether decoding takes one leading space off the first piece (the space encoding added).
  virtual bool removesLeadingSpace() const noexcept { return false; }

  TokenVocabulary m_vocab;

 private:
  std::vector<int32_t> m_specialIds;  // user-defined, control and unknown tokens, longest text first
};

// A token alone as an axis label: control tokens by name, bytes that are no UTF-8 character
// escaped ("\xc3"), so that the viewer, Python and the CLI show one token the same way.
std::string tokenLabel(const TextTokenizer& tokenizer, int32_t id);

}  // namespace vkattn
