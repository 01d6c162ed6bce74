// The tokenizer a GGUF file's metadata describes: tokenizer.ggml.model "llama" (SentencePiece
// BPE, sentencepiece_bpe) or "gpt2" (byte-level BPE with the pre-tokenizer tokenizer.ggml.pre
// names). Throws InvalidArgument naming the key for a missing or malformed value, and naming the
// model or pre-tokenizer when vkattn does not know it.
#pragma once

#include <filesystem>
#include <memory>

#include "vkattn/tokenizers/text_tokenizer.hpp"
#include "vkattn/tokenizers/token_vocabulary.hpp"

namespace vkattn {

class GgufMetadata;

std::unique_ptr<TextTokenizer> makeTokenizer(TokenVocabulary vocab);
std::unique_ptr<TextTokenizer> makeTokenizer(const GgufMetadata& metadata);
std::unique_ptr<TextTokenizer> loadTokenizer(const std::filesystem::path& ggufPath);

}  // namespace vkattn
