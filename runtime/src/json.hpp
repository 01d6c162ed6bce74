// A small, strict JSON reader (RFC 8259) for file headers such as safetensors'. Private to the
// runtime. Numbers keep their text so integers up to 2^64 - 1 read back exactly; objects keep
// their keys in file order and reject duplicates; nesting is bounded so hostile input cannot
// exhaust the stack.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vkattn::detail {

// What went wrong and at which byte of the text.
class JsonError : public std::runtime_error {
 public:
  JsonError(const std::string& problem, std::size_t offset)
      : std::runtime_error(problem + " at byte " + std::to_string(offset)), m_offset(offset) {}
  std::size_t offset() const noexcept { return m_offset; }

 private:
  std::size_t m_offset;
};

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text;  // String: the decoded UTF-8; Number: the literal as written
  std::vector<JsonValue> items;                             // Array
  std::vector<std::pair<std::string, JsonValue>> members;   // Object, in file order

  bool isObject() const noexcept { return kind == Kind::Object; }
  bool isArray() const noexcept { return kind == Kind::Array; }
  bool isString() const noexcept { return kind == Kind::String; }
  // The member named `key`, or nullptr.
  const JsonValue* find(std::string_view key) const;
  // A Number written as a plain non-negative integer that fits 64 bits, else nullopt.
  std::optional<uint64_t> asUint64() const;
};

const char* toString(JsonValue::Kind kind) noexcept;

// Parses one JSON value filling `text` (surrounding whitespace allowed). Throws JsonError.
JsonValue parseJson(std::string_view text, int maxDepth = 64);

}  // namespace vkattn::detail
