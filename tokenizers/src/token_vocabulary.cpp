#include "vkattn/tokenizers/token_vocabulary.hpp"

#include "vkattn/core/error.hpp"
#include "vkattn/io/gguf_value.hpp"

namespace vkattn {
namespace {

constexpr std::string_view kModel = "tokenizer.ggml.model";
constexpr std::string_view kPre = "tokenizer.ggml.pre";
constexpr std::string_view kTokens = "tokenizer.ggml.tokens";
constexpr std::string_view kScores = "tokenizer.ggml.scores";
constexpr std::string_view kTypes = "tokenizer.ggml.token_type";
constexpr std::string_view kMerges = "tokenizer.ggml.merges";

void checkLength(std::string_view key, std::size_t length, std::size_t tokens) {
  if (length != tokens)
    throw InvalidArgument(std::string(key), std::to_string(length) + " entries for " + std::to_string(tokens) +
                                                " tokens (" + std::string(kTokens) + ")");
}

// The id under `key`, or `fallback` when the file has none; an id outside the vocabulary is an error.
int32_t specialId(const GgufMetadata& metadata, std::string_view key, int32_t fallback, int32_t size) {
  if (!metadata.contains(key)) return fallback < size ? fallback : kNoToken;
  const int64_t id = metadata.getInteger(key);
  if (id < 0 || id >= size)
    throw InvalidArgument(std::string(key), "token id " + std::to_string(id) + " outside the vocabulary of " +
                                                std::to_string(size) + " tokens");
  return static_cast<int32_t>(id);
}

bool flag(const GgufMetadata& metadata, std::string_view key, bool fallback) {
  return metadata.contains(key) ? metadata.getBool(key) : fallback;
}

}  // namespace

int32_t TokenVocabulary::find(std::string_view text) const {
  const auto it = m_ids.find(std::string(text));
  return it == m_ids.end() ? kNoToken : it->second;
}

void TokenVocabulary::index() {
  m_ids.clear();
  m_ids.reserve(tokens.size());
  for (int32_t id = 0; id < size(); ++id) m_ids[tokens[id]] = id;
}

TokenVocabulary readTokenVocabulary(const GgufMetadata& metadata) {
  TokenVocabulary vocab;
  vocab.model = metadata.getString(kModel);
  vocab.pre = metadata.contains(kPre) ? metadata.getString(kPre) : "default";
  vocab.tokens = metadata.getArrayOf<std::string>(kTokens);
  if (vocab.tokens.empty()) throw InvalidArgument(std::string(kTokens), "no tokens");
  if (vocab.tokens.size() > static_cast<std::size_t>(INT32_MAX))
    throw InvalidArgument(std::string(kTokens), "more tokens than int32 ids reach");
  const std::size_t n = vocab.tokens.size();
  const bool llama = vocab.model == "llama";

  if (llama || metadata.contains(kScores)) {
    vocab.scores = metadata.getArrayOf<float>(kScores);
    checkLength(kScores, vocab.scores.size(), n);
  } else {
    vocab.scores.assign(n, 0.0f);
  }
  vocab.types.assign(n, TokenType::Normal);
  if (metadata.contains(kTypes)) {
    const std::vector<int32_t> types = metadata.getArrayOf<int32_t>(kTypes);
    checkLength(kTypes, types.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      if (types[i] < 0 || types[i] > static_cast<int32_t>(TokenType::Byte))
        throw InvalidArgument(std::string(kTypes), "token " + std::to_string(i) + " has type " +
                                                       std::to_string(types[i]) + " (known: 0 to 6)");
      vocab.types[i] = static_cast<TokenType>(types[i]);
    }
  }
  if (vocab.model == "gpt2") vocab.merges = metadata.getArrayOf<std::string>(kMerges);

  const int32_t size = vocab.size();
  vocab.bos = specialId(metadata, "tokenizer.ggml.bos_token_id", llama ? 1 : kNoToken, size);
  vocab.eos = specialId(metadata, "tokenizer.ggml.eos_token_id", llama ? 2 : kNoToken, size);
  vocab.unk = specialId(metadata, "tokenizer.ggml.unknown_token_id", llama ? 0 : kNoToken, size);
  vocab.pad = specialId(metadata, "tokenizer.ggml.padding_token_id", kNoToken, size);
  vocab.addBos = flag(metadata, "tokenizer.ggml.add_bos_token", llama);
  vocab.addEos = flag(metadata, "tokenizer.ggml.add_eos_token", false);
  vocab.addSpacePrefix = flag(metadata, "tokenizer.ggml.add_space_prefix", llama);
  if (vocab.addBos && vocab.bos == kNoToken)
    throw InvalidArgument("tokenizer.ggml.bos_token_id", "missing, and tokenizer.ggml.add_bos_token asks for it");
  if (vocab.addEos && vocab.eos == kNoToken)
    throw InvalidArgument("tokenizer.ggml.eos_token_id", "missing, and tokenizer.ggml.add_eos_token asks for it");
  vocab.index();
  return vocab;
}

}  // namespace vkattn
