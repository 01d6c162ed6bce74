// Just enough JSON to read the viewer's layout sidecar back in the tests: objects, arrays,
// numbers, strings (with \u escapes of the BMP), true, false, null. Throws std::runtime_error.
#pragma once

#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace vkattn::viewer::test {

struct Json {
  enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::map<std::string, Json> fields;

  const Json& operator[](const std::string& key) const {
    auto it = fields.find(key);
    if (it == fields.end()) throw std::runtime_error("JSON has no field '" + key + "'");
    return it->second;
  }
  const Json& operator[](std::size_t i) const { return items.at(i); }
  bool has(const std::string& key) const { return fields.count(key) != 0; }
  std::size_t size() const { return type == Type::Array ? items.size() : fields.size(); }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : m_text(text) {}
  Json parse() {
    Json value = parseValue();
    skipSpace();
    if (m_pos != m_text.size()) fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(m_pos));
  }
  void skipSpace() {
    while (m_pos < m_text.size() && std::string(" \t\r\n").find(m_text[m_pos]) != std::string::npos) ++m_pos;
  }
  bool take(char c) {
    skipSpace();
    if (m_pos < m_text.size() && m_text[m_pos] == c) {
      ++m_pos;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(std::string("expected '") + c + "'");
  }
  std::string parseString() {
    expect('"');
    std::string out;
    while (m_pos < m_text.size() && m_text[m_pos] != '"') {
      char c = m_text[m_pos++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (m_pos >= m_text.size()) fail("truncated escape");
      c = m_text[m_pos++];
      if (c == 'u') {
        if (m_pos + 4 > m_text.size()) fail("truncated \\u escape");
        const unsigned cp = static_cast<unsigned>(std::stoul(m_text.substr(m_pos, 4), nullptr, 16));
        m_pos += 4;
        if (cp < 0x80) {
          out += static_cast<char>(cp);
        } else if (cp < 0x800) {
          out += static_cast<char>(0xc0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
          out += static_cast<char>(0xe0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
          out += static_cast<char>(0x80 | (cp & 0x3f));
        }
      } else {
        const std::string from = "\"\\/bfnrt", to = "\"\\/\b\f\n\r\t";
        const auto k = from.find(c);
        if (k == std::string::npos) fail("bad escape");
        out += to[k];
      }
    }
    expect('"');
    return out;
  }
  Json parseValue() {
    skipSpace();
    if (m_pos >= m_text.size()) fail("unexpected end");
    Json v;
    const char c = m_text[m_pos];
    if (c == '{') {
      v.type = Json::Type::Object;
      ++m_pos;
      if (take('}')) return v;
      do {
        skipSpace();
        std::string key = parseString();
        expect(':');
        v.fields[key] = parseValue();
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      v.type = Json::Type::Array;
      ++m_pos;
      if (take(']')) return v;
      do v.items.push_back(parseValue());
      while (take(','));
      expect(']');
    } else if (c == '"') {
      v.type = Json::Type::String;
      v.text = parseString();
    } else if (m_text.compare(m_pos, 4, "true") == 0 || m_text.compare(m_pos, 5, "false") == 0) {
      v.type = Json::Type::Bool;
      v.boolean = c == 't';
      m_pos += v.boolean ? 4 : 5;
    } else if (m_text.compare(m_pos, 4, "null") == 0) {
      m_pos += 4;
    } else {
      char* end = nullptr;
      v.type = Json::Type::Number;
      v.number = std::strtod(m_text.c_str() + m_pos, &end);
      if (end == m_text.c_str() + m_pos) fail("bad value");
      m_pos = static_cast<std::size_t>(end - m_text.c_str());
    }
    return v;
  }

  const std::string& m_text;
  std::size_t m_pos = 0;
};

}  // namespace vkattn::viewer::test
