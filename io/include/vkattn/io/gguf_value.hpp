// GGUF metadata values: the thirteen value types of the format (numbered as in the file), a value
// that holds one of them (arrays hold values of one element type, arrays of arrays included),
// and the key -> value table of a file with typed getters. A getter for a missing key or a value
// of another type throws InvalidArgument naming the key, the file, and both types.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace vkattn {

enum class GgufValueType : uint32_t {
  UInt8 = 0,
  Int8 = 1,
  UInt16 = 2,
  Int16 = 3,
  UInt32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  UInt64 = 10,
  Int64 = 11,
  Float64 = 12,
};

// "UINT8", "STRING", ... as the GGUF specification spells them; "unknown" past the table.
const char* ggufValueTypeName(GgufValueType type) noexcept;

class GgufValue;

struct GgufArray {
  GgufValueType elementType = GgufValueType::UInt8;
  std::vector<GgufValue> items;  // each of elementType
};

// Alternatives in value-type order, so the variant's index is the GGUF type id.
using GgufStorage = std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool, std::string,
                                 GgufArray, uint64_t, int64_t, double>;

namespace detail {
template <class T, class... Ts>
constexpr std::size_t alternativeIndex(const std::variant<Ts...>*) noexcept {
  constexpr bool same[] = {std::is_same_v<T, Ts>...};
  for (std::size_t i = 0; i < sizeof...(Ts); ++i)
    if (same[i]) return i;
  return sizeof...(Ts);
}
}  // namespace detail

// True for the thirteen C++ types a GgufValue holds.
template <class T>
inline constexpr bool kIsGgufValueType =
    detail::alternativeIndex<T>(static_cast<const GgufStorage*>(nullptr)) < std::variant_size_v<GgufStorage>;

template <class T>
constexpr GgufValueType ggufValueTypeOf() noexcept {
  static_assert(kIsGgufValueType<T>, "not one of the GGUF value types");
  return static_cast<GgufValueType>(detail::alternativeIndex<T>(static_cast<const GgufStorage*>(nullptr)));
}

class GgufValue {
 public:
  GgufValue() = default;  // UINT8 zero
  // Exactly one of the alternative types: GgufValue(uint32_t{32}), GgufValue(std::string("llama")).
  template <class T, class = std::enable_if_t<kIsGgufValueType<T>>>
  explicit GgufValue(T value) : m_storage(std::move(value)) {}
  explicit GgufValue(const char* text) : m_storage(std::string(text)) {}

  // An array of values of one type: GgufValue::arrayOf(std::vector<std::string>{...}).
  template <class T>
  static GgufValue arrayOf(const std::vector<T>& values) {
    GgufArray array{ggufValueTypeOf<T>(), {}};
    array.items.reserve(values.size());
    for (const T& v : values) array.items.emplace_back(v);
    return GgufValue(std::move(array));
  }

  GgufValueType type() const noexcept { return static_cast<GgufValueType>(m_storage.index()); }
  template <class T>
  const T* getIf() const noexcept {
    return std::get_if<T>(&m_storage);
  }
  const GgufStorage& storage() const noexcept { return m_storage; }
  bool operator==(const GgufValue& other) const;

 private:
  GgufStorage m_storage;
};

bool operator==(const GgufArray& a, const GgufArray& b);

class GgufMetadata {
 public:
  GgufMetadata() = default;
  explicit GgufMetadata(std::string fileName) : m_fileName(std::move(fileName)) {}

  // Adds a key; throws InvalidArgument(key, ...) when the key is already there.
  void add(std::string key, GgufValue value);

  bool contains(std::string_view key) const noexcept { return find(key) != nullptr; }
  const GgufValue* find(std::string_view key) const noexcept;
  // Throws InvalidArgument(key, "no such key ...") when missing.
  const GgufValue& at(std::string_view key) const;
  // Keys and values in file order.
  const std::vector<std::pair<std::string, GgufValue>>& entries() const noexcept { return m_entries; }
  std::size_t size() const noexcept { return m_entries.size(); }

  // The value of `key` when it has type T; InvalidArgument naming the key and both types otherwise.
  template <class T>
  const T& get(std::string_view key) const {
    const GgufValue& value = at(key);
    if (const T* v = value.getIf<T>()) return *v;
    throwWrongType(key, value.type(), ggufValueTypeOf<T>());
  }
  uint8_t getU8(std::string_view key) const { return get<uint8_t>(key); }
  int8_t getI8(std::string_view key) const { return get<int8_t>(key); }
  uint16_t getU16(std::string_view key) const { return get<uint16_t>(key); }
  int16_t getI16(std::string_view key) const { return get<int16_t>(key); }
  uint32_t getU32(std::string_view key) const { return get<uint32_t>(key); }
  int32_t getI32(std::string_view key) const { return get<int32_t>(key); }
  uint64_t getU64(std::string_view key) const { return get<uint64_t>(key); }
  int64_t getI64(std::string_view key) const { return get<int64_t>(key); }
  float getF32(std::string_view key) const { return get<float>(key); }
  double getF64(std::string_view key) const { return get<double>(key); }
  bool getBool(std::string_view key) const { return get<bool>(key); }
  const std::string& getString(std::string_view key) const { return get<std::string>(key); }
  const GgufArray& getArray(std::string_view key) const { return get<GgufArray>(key); }

  // Any integer type whose value fits int64 (writers differ on UINT32 vs UINT64 for counts).
  int64_t getInteger(std::string_view key) const;
  // The elements of an array whose element type is T, e.g. getArrayOf<std::string>("tokenizer.ggml.tokens").
  template <class T>
  std::vector<T> getArrayOf(std::string_view key) const {
    const GgufArray& array = getArray(key);
    if (array.elementType != ggufValueTypeOf<T>()) throwWrongElementType(key, array.elementType, ggufValueTypeOf<T>());
    std::vector<T> out;
    out.reserve(array.items.size());
    for (const GgufValue& item : array.items) out.push_back(*item.getIf<T>());
    return out;
  }

 private:
  [[noreturn]] void throwWrongType(std::string_view key, GgufValueType actual, GgufValueType expected) const;
  [[noreturn]] void throwWrongElementType(std::string_view key, GgufValueType actual, GgufValueType expected) const;

  std::string m_fileName;
  std::vector<std::pair<std::string, GgufValue>> m_entries;
  std::map<std::string, std::size_t, std::less<>> m_index;  // key -> position in m_entries
};

}  // namespace vkattn
