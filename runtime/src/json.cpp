#include "json.hpp"

namespace vkattn::detail {
namespace {

class Parser {
 public:
  Parser(std::string_view text, int maxDepth) : m_text(text), m_maxDepth(maxDepth) {}

  JsonValue document() {
    skipSpace();
    JsonValue v = value(0);
    skipSpace();
    if (m_pos != m_text.size()) fail("unexpected text after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { throw JsonError(problem, m_pos); }

  bool atEnd() const { return m_pos >= m_text.size(); }
  char peek() const { return atEnd() ? '\0' : m_text[m_pos]; }

  void skipSpace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++m_pos;
  }

  void expect(char c) {
    if (peek() != c || atEnd()) fail(std::string("expected '") + c + "'");
    ++m_pos;
  }

  void literal(std::string_view word) {
    if (m_text.substr(m_pos, word.size()) != word) fail("invalid literal");
    m_pos += word.size();
  }

  JsonValue value(int depth) {
    if (depth > m_maxDepth) fail("nesting deeper than " + std::to_string(m_maxDepth));
    if (atEnd()) fail("unexpected end of text");
    JsonValue v;
    switch (peek()) {
      case '{': v.kind = JsonValue::Kind::Object; object(v, depth); break;
      case '[': v.kind = JsonValue::Kind::Array; array(v, depth); break;
      case '"': v.kind = JsonValue::Kind::String; v.text = string(); break;
      case 't': literal("true"); v.kind = JsonValue::Kind::Bool; v.boolean = true; break;
      case 'f': literal("false"); v.kind = JsonValue::Kind::Bool; break;
      case 'n': literal("null"); break;
      default: v.kind = JsonValue::Kind::Number; v.text = number(); break;
    }
    return v;
  }

  void object(JsonValue& v, int depth) {
    expect('{');
    skipSpace();
    if (peek() == '}') {
      ++m_pos;
      return;
    }
    for (;;) {
      skipSpace();
      if (peek() != '"') fail("expected a string key");
      const std::size_t keyAt = m_pos;
      std::string key = string();
      for (const auto& member : v.members)
        if (member.first == key) throw JsonError("duplicate key \"" + key + "\"", keyAt);
      skipSpace();
      expect(':');
      skipSpace();
      JsonValue item = value(depth + 1);
      v.members.emplace_back(std::move(key), std::move(item));
      skipSpace();
      if (peek() == ',' && !atEnd()) {
        ++m_pos;
        continue;
      }
      expect('}');
      return;
    }
  }

  void array(JsonValue& v, int depth) {
    expect('[');
    skipSpace();
    if (peek() == ']') {
      ++m_pos;
      return;
    }
    for (;;) {
      skipSpace();
      v.items.push_back(value(depth + 1));
      skipSpace();
      if (peek() == ',' && !atEnd()) {
        ++m_pos;
        continue;
      }
      expect(']');
      return;
    }
  }

  std::string number() {
    const std::size_t start = m_pos;
    auto digits = [&] {
      const std::size_t from = m_pos;
      while (!atEnd() && peek() >= '0' && peek() <= '9') ++m_pos;
      if (m_pos == from) fail("expected a digit");
    };
    if (peek() == '-') ++m_pos;
    if (peek() == '0' && !atEnd()) {
      ++m_pos;  // no leading zeros
    } else {
      digits();
    }
    if (peek() == '.' && !atEnd()) {
      ++m_pos;
      digits();
    }
    if ((peek() == 'e' || peek() == 'E') && !atEnd()) {
      ++m_pos;
      if (peek() == '+' || peek() == '-') ++m_pos;
      digits();
    }
    return std::string(m_text.substr(start, m_pos - start));
  }

  unsigned hex4() {
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      if (atEnd()) fail("truncated \\u escape");
      const char c = m_text[m_pos++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
      else fail("bad hex digit in \\u escape");
    }
    return v;
  }

  static void appendUtf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (atEnd()) fail("unterminated string");
      const char c = m_text[m_pos++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (atEnd()) fail("unterminated escape");
      const char e = m_text[m_pos++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xd800 && cp < 0xdc00) {
            // A high surrogate must pair with a low one to form one code point.
            if (m_text.substr(m_pos, 2) != "\\u") fail("unpaired surrogate in \\u escape");
            m_pos += 2;
            const unsigned low = hex4();
            if (low < 0xdc00 || low >= 0xe000) fail("unpaired surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          } else if (cp >= 0xdc00 && cp < 0xe000) {
            fail("unpaired surrogate in \\u escape");
          }
          appendUtf8(out, cp);
          break;
        }
        default: fail("unknown escape");
      }
    }
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
  int m_maxDepth;
};

}  // namespace

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& member : members)
    if (member.first == key) return &member.second;
  return nullptr;
}

std::optional<uint64_t> JsonValue::asUint64() const {
  if (kind != Kind::Number || text.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return v;
}

const char* toString(JsonValue::Kind kind) noexcept {
  switch (kind) {
    case JsonValue::Kind::Null: return "null";
    case JsonValue::Kind::Bool: return "a boolean";
    case JsonValue::Kind::Number: return "a number";
    case JsonValue::Kind::String: return "a string";
    case JsonValue::Kind::Array: return "an array";
    case JsonValue::Kind::Object: return "an object";
  }
  return "?";
}

JsonValue parseJson(std::string_view text, int maxDepth) { return Parser(text, maxDepth).document(); }

}  // namespace vkattn::detail
