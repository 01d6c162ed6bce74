#include "vkattn/tokenizers/gguf_tokenizer.hpp"

#include "byte_level_bpe.hpp"
#include "sentencepiece_bpe.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/io/gguf.hpp"

namespace vkattn {

std::unique_ptr<TextTokenizer> makeTokenizer(TokenVocabulary vocab) {
  if (vocab.model == "llama") return tokenizers::makeSentencePieceBpe(std::move(vocab));
  if (vocab.model == "gpt2") return tokenizers::makeByteLevelBpe(std::move(vocab));
  throw InvalidArgument("tokenizer.ggml.model",
                        "\"" + vocab.model + "\" is not a tokenizer vkattn knows (known: \"llama\", \"gpt2\")");
}

std::unique_ptr<TextTokenizer> makeTokenizer(const GgufMetadata& metadata) {
  return makeTokenizer(readTokenVocabulary(metadata));
}

std::unique_ptr<TextTokenizer> loadTokenizer(const std::filesystem::path& ggufPath) {
  return makeTokenizer(GgufFile(ggufPath).metadata());
}

}  // namespace vkattn
