// tokenizer.ggml.model "gpt2": byte-level BPE (GPT-2, Llama 3, Qwen2, SmolLM2). Text is cut into
// pieces by the pre-tokenizer tokenizer.ggml.pre names, each piece's bytes are written as GPT-2's
// byte characters (byte_to_unicode.hpp), and within a piece the adjacent pair of lowest merge rank
// (its position in tokenizer.ggml.merges), leftmost on ties, is merged until no pair has a rank.
// With "llama-bpe" a piece that is a token as a whole is taken whole (ignore_merges, as Llama 3's
// tokenizer.json asks). Decoding turns each token's characters back into bytes.
#pragma once

#include <memory>

#include "vkattn/tokenizers/text_tokenizer.hpp"

namespace vkattn::tokenizers {

std::unique_ptr<TextTokenizer> makeByteLevelBpe(TokenVocabulary vocab);

}  // namespace vkattn::tokenizers
