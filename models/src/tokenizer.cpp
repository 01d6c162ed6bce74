#include "vkattn/models/tokenizer.hpp"

#include <fstream>
#include <string_view>

#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

constexpr std::string_view kPunctuation = ".,?!;:";

bool isPunctuation(const std::string& token) {
  return token.size() == 1 && kPunctuation.find(token[0]) != std::string_view::npos;
}

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

void splitChunk(std::string chunk, std::vector<std::string>& out) {
  std::vector<std::string> trailing;
  while (!chunk.empty() && kPunctuation.find(chunk.back()) != std::string_view::npos) {
    trailing.emplace_back(1, chunk.back());
    chunk.pop_back();
  }
  const std::size_t apostrophe = chunk.find('\'');
  if (apostrophe != std::string::npos && apostrophe + 1 < chunk.size()) {
    out.push_back(chunk.substr(0, apostrophe + 1));
    out.push_back(chunk.substr(apostrophe + 1));
  } else if (!chunk.empty()) {
    out.push_back(chunk);
  }
  out.insert(out.end(), trailing.rbegin(), trailing.rend());
}

}  // namespace

std::vector<std::string> tokenizeWords(const std::string& text) {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && isSpace(text[i])) ++i;
    std::size_t end = i;
    while (end < text.size() && !isSpace(text[end])) ++end;
    if (end > i) splitChunk(text.substr(i, end - i), tokens);
    i = end;
  }
  return tokens;
}

std::string detokenizeWords(const std::vector<std::string>& tokens) {
  std::string text;
  bool glueNext = true;  // no space before the first token
  for (const std::string& token : tokens) {
    if (!glueNext && !isPunctuation(token)) text += ' ';
    text += token;
    glueNext = !token.empty() && token.back() == '\'';
  }
  return text;
}

Vocabulary Vocabulary::load(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgument("vocabulary", "cannot open " + path.string());
  std::vector<std::string> tokens;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    tokens.push_back(line);
  }
  if (tokens.size() < 4 || tokens[kPad] != "<pad>" || tokens[kBos] != "<bos>" || tokens[kEos] != "<eos>" ||
      tokens[kUnk] != "<unk>")
    throw InvalidArgument("vocabulary", path.string() + " must start with <pad>, <bos>, <eos>, <unk>");
  return Vocabulary(std::move(tokens));
}

Vocabulary::Vocabulary(std::vector<std::string> tokens) : m_tokens(std::move(tokens)) {
  for (std::size_t i = 0; i < m_tokens.size(); ++i) {
    if (!m_ids.emplace(m_tokens[i], static_cast<int32_t>(i)).second)
      throw InvalidArgument("vocabulary", "token '" + m_tokens[i] + "' appears twice");
  }
}

int32_t Vocabulary::id(const std::string& token) const {
  auto it = m_ids.find(token);
  return it == m_ids.end() ? kUnk : it->second;
}

const std::string& Vocabulary::token(int32_t id) const {
  if (id < 0 || id >= size())
    throw InvalidArgument("id", std::to_string(id) + " is outside the vocabulary of " + std::to_string(size()));
  return m_tokens[static_cast<std::size_t>(id)];
}

}  // namespace vkattn
