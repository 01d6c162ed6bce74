#define PCRE2_CODE_UNIT_WIDTH 8
#include "vkattn/tokenizers/pretokenizer.hpp"

#include <pcre2.h>

#include <map>

#include "utf8_length.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

// GPT-2's expression (encoder.py); contractions, letters, digits, other symbols, whitespace.
constexpr const char* kGpt2 = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
// Llama 3's (tokenizer.json's, with the case-insensitive group spelled out as llama.cpp does):
// digits in runs of at most three, a newline run kept apart from other whitespace.
constexpr const char* kLlama3 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// Qwen2's: Llama 3's with single digits.
constexpr const char* kQwen2 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// llama.cpp's lists per tokenizer.ggml.pre name.
const std::map<std::string, std::vector<const char*>, std::less<>>& expressionLists() {
  static const std::map<std::string, std::vector<const char*>, std::less<>> lists = {
      // llama.cpp's fallback for byte-level BPE vocabularies without a known pre-tokenizer.
      {"default", {R"([\p{P}\$\+<=>\^~\|]+)", kGpt2, R"(\p{N}+)", "[0-9][0-9][0-9]"}},
      {"gpt-2", {kGpt2}},
      {"gpt2", {kGpt2}},  // an early spelling of llama.cpp's "gpt-2", still read
      {"llama-bpe", {kLlama3}},
      {"qwen2", {kQwen2}},
      {"smollm", {R"(\p{N})", kGpt2}},
  };
  return lists;
}

std::string pcre2Message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof buffer);
  return reinterpret_cast<const char*>(buffer);
}

}  // namespace

// One compiled expression with its match data; matching is read-only on the code, and each call
// makes its own match data so that one PreTokenizer serves several threads.
class PreTokenizer::Expression {
 public:
  explicit Expression(const char* pattern) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    m_code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern), PCRE2_ZERO_TERMINATED,
                           PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error, &offset, nullptr);
    if (!m_code) throw Error(std::string("pcre2_compile of ") + pattern + ": " + pcre2Message(error));
  }
  ~Expression() { pcre2_code_free(m_code); }
  Expression(const Expression&) = delete;
  Expression& operator=(const Expression&) = delete;

  // Appends each of `pieces` split into matches and the stretches between them.
  void split(const std::vector<std::string_view>& pieces, std::vector<std::string_view>& out) const {
    const std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
        pcre2_match_data_create_from_pattern(m_code, nullptr), &pcre2_match_data_free);
    if (!match) throw Error("pcre2_match_data_create_from_pattern: out of memory");
    for (const std::string_view piece : pieces) {
      const auto subject = reinterpret_cast<PCRE2_SPTR>(piece.data());
      std::size_t done = 0, from = 0;
      while (from < piece.size()) {
        const int rc = pcre2_match(m_code, subject, piece.size(), from, 0, match.get(), nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) throw Error("pcre2_match: " + pcre2Message(rc));
        const PCRE2_SIZE* span = pcre2_get_ovector_pointer(match.get());
        if (span[1] == span[0]) {  // an empty match (none of the lists has one): step over a character
          from = span[1] + tokenizers::utf8SequenceLength(static_cast<unsigned char>(piece[span[1]]));
          continue;
        }
        if (span[0] > done) out.push_back(piece.substr(done, span[0] - done));
        out.push_back(piece.substr(span[0], span[1] - span[0]));
        done = from = span[1];
      }
      if (done < piece.size()) out.push_back(piece.substr(done));
    }
  }

 private:
  pcre2_code* m_code = nullptr;
};

PreTokenizer::PreTokenizer(const std::string& name) {
  const auto& lists = expressionLists();
  const auto it = lists.find(name);
  if (it == lists.end()) {
    std::string known;
    for (const auto& [key, _] : lists) known += (known.empty() ? "\"" : ", \"") + key + "\"";
    throw InvalidArgument("tokenizer.ggml.pre",
                          "\"" + name + "\" is not a pre-tokenizer vkattn knows (known: " + known + ")");
  }
  for (const char* pattern : it->second) m_expressions.push_back(std::make_unique<Expression>(pattern));
}

PreTokenizer::~PreTokenizer() = default;

std::vector<std::string_view> PreTokenizer::split(std::string_view text) const {
  std::vector<std::string_view> pieces;
  if (!text.empty()) pieces.push_back(text);
  for (const auto& expression : m_expressions) {
    std::vector<std::string_view> next;
    next.reserve(pieces.size() * 2);
    expression->split(pieces, next);
    pieces = std::move(next);
  }
  return pieces;
}

}  // namespace vkattn
