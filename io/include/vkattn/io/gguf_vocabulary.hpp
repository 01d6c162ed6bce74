// A SentencePiece-style ("llama") vocabulary as GGUF metadata, for models written from scratch
// (tests, benchmarks): <unk> <s> </s>, the 256 byte tokens <0x00> .. <0xFF> (ids 3 .. 258), then
// normal pieces with their scores. Header-only, so that programs linking only the tokenizers use
// it too.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "vkattn/io/gguf_value.hpp"

namespace vkattn {

inline constexpr int32_t kFirstByteToken = 3;  // id of <0x00>

// tokenizer.ggml.{model, tokens, scores, token_type, bos/eos/unknown_token_id} in that order.
inline std::vector<std::pair<std::string, GgufValue>> byteFallbackVocabulary(
    const std::vector<std::pair<std::string, float>>& pieces) {
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
  std::vector<float> scores = {0, 0, 0};
  std::vector<int32_t> types = {2, 3, 3};  // unknown, control, control
  for (int b = 0; b < 256; ++b) {
    char text[8];
    std::snprintf(text, sizeof text, "<0x%02X>", b);
    tokens.push_back(text);
    scores.push_back(0);
    types.push_back(6);  // byte
  }
  for (const auto& piece : pieces) {
    tokens.push_back(piece.first);
    scores.push_back(piece.second);
    types.push_back(1);  // normal
  }
  return {{"tokenizer.ggml.model", GgufValue("llama")},
          {"tokenizer.ggml.tokens", GgufValue::arrayOf(tokens)},
          {"tokenizer.ggml.scores", GgufValue::arrayOf(scores)},
          {"tokenizer.ggml.token_type", GgufValue::arrayOf(types)},
          {"tokenizer.ggml.bos_token_id", GgufValue(uint32_t{1})},
          {"tokenizer.ggml.eos_token_id", GgufValue(uint32_t{2})},
          {"tokenizer.ggml.unknown_token_id", GgufValue(uint32_t{0})}};
}

}  // namespace vkattn
