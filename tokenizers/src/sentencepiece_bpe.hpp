// tokenizer.ggml.model "llama": SentencePiece's BPE as llama.cpp runs it for LLaMA 1/2 style
// vocabularies. Spaces become U+2581 ("▁"), with one in front of the text at its start and after
// a special token when add_space_prefix; the text is split into UTF-8 characters and the adjacent
// pair whose concatenation is the vocabulary token of the highest score is merged, leftmost pair
// first on ties, until no pair is a token. A character that is no token falls back to its bytes'
// <0xAB> tokens (then to a token of the byte itself, then to the unknown token).
#pragma once

#include <memory>

#include "vkattn/tokenizers/text_tokenizer.hpp"

namespace vkattn::tokenizers {

std::unique_ptr<TextTokenizer> makeSentencePieceBpe(TokenVocabulary vocab);

}  // namespace vkattn::tokenizers
