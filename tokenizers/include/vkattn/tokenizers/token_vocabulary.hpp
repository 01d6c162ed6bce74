// A tokenizer's vocabulary as a GGUF file stores it under tokenizer.ggml.*: token texts, scores,
// types, BPE merges, the special ids and the flags that say what encoding adds. Read once and
// checked whole: a missing required key, an array of the wrong length or an id out of range is
// an InvalidArgument naming the key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vkattn {

class GgufMetadata;

// tokenizer.ggml.token_type values, numbered as llama.cpp numbers them.
enum class TokenType : int32_t {
  Undefined = 0,
  Normal = 1,
  Unknown = 2,
  Control = 3,
  UserDefined = 4,
  Unused = 5,
  Byte = 6,
};

// An id the vocabulary does not have (a special token it lacks, a text not in it).
inline constexpr int32_t kNoToken = -1;

struct TokenVocabulary {
  std::string model;  // tokenizer.ggml.model: "llama" or "gpt2"
  std::string pre;    // tokenizer.ggml.pre; "default" when the file has none (as llama.cpp)
  std::vector<std::string> tokens;
  std::vector<float> scores;        // one per token; 0 where the file has none ("gpt2")
  std::vector<TokenType> types;     // one per token; Normal where the file has none
  std::vector<std::string> merges;  // "left right", rank = position ("gpt2" only)
  int32_t bos = kNoToken, eos = kNoToken, unk = kNoToken, pad = kNoToken;
  bool addBos = false, addEos = false;
  bool addSpacePrefix = false;  // "llama": encode prefixes "▁" to text at the start or after a special token

  int32_t size() const noexcept { return static_cast<int32_t>(tokens.size()); }
  // The id of a token text; kNoToken when absent. A text listed twice maps to its last id.
  int32_t find(std::string_view text) const;
  bool contains(int32_t id) const noexcept { return id >= 0 && id < size(); }

  // Fills the text -> id index; readTokenVocabulary calls it, code that edits `tokens` calls it again.
  void index();

 private:
  std::unordered_map<std::string, int32_t> m_ids;
};

// Defaults where a key is absent follow llama.cpp: for "llama" bos 1, eos 2, unk 0, add_bos true,
// add_space_prefix true; for "gpt2" no special ids, add_bos false. Required: model, tokens,
// scores ("llama"), merges ("gpt2").
TokenVocabulary readTokenVocabulary(const GgufMetadata& metadata);

}  // namespace vkattn
