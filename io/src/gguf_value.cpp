#include "vkattn/io/gguf_value.hpp"

#include <limits>

#include "vkattn/core/error.hpp"

namespace vkattn {

const char* ggufValueTypeName(GgufValueType type) noexcept {
  static constexpr const char* kNames[] = {"UINT8", "INT8",   "UINT16", "INT16",  "UINT32", "INT32",  "FLOAT32",
                                           "BOOL",  "STRING", "ARRAY",  "UINT64", "INT64",  "FLOAT64"};
  const auto id = static_cast<uint32_t>(type);
  return id < std::size(kNames) ? kNames[id] : "unknown";
}

bool operator==(const GgufArray& a, const GgufArray& b) {
  return a.elementType == b.elementType && a.items == b.items;
}

bool GgufValue::operator==(const GgufValue& other) const {
  return m_storage == other.m_storage;
}

void GgufMetadata::add(std::string key, GgufValue value) {
  if (contains(key)) throw InvalidArgument(key, "metadata key appears twice in " + m_fileName);
  m_index.emplace(key, m_entries.size());
  m_entries.emplace_back(std::move(key), std::move(value));
}

const GgufValue* GgufMetadata::find(std::string_view key) const noexcept {
  const auto it = m_index.find(key);
  return it == m_index.end() ? nullptr : &m_entries[it->second].second;
}

const GgufValue& GgufMetadata::at(std::string_view key) const {
  if (const GgufValue* v = find(key)) return *v;
  throw InvalidArgument(std::string(key), "no such metadata key in " + m_fileName);
}

int64_t GgufMetadata::getInteger(std::string_view key) const {
  const GgufValue& value = at(key);
  switch (value.type()) {
    case GgufValueType::UInt8:
      return *value.getIf<uint8_t>();
    case GgufValueType::Int8:
      return *value.getIf<int8_t>();
    case GgufValueType::UInt16:
      return *value.getIf<uint16_t>();
    case GgufValueType::Int16:
      return *value.getIf<int16_t>();
    case GgufValueType::UInt32:
      return *value.getIf<uint32_t>();
    case GgufValueType::Int32:
      return *value.getIf<int32_t>();
    case GgufValueType::Int64:
      return *value.getIf<int64_t>();
    case GgufValueType::UInt64: {
      const uint64_t v = *value.getIf<uint64_t>();
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        throw InvalidArgument(std::string(key), "metadata value " + std::to_string(v) + " in " + m_fileName +
                                                    " does not fit a signed 64-bit integer");
      return static_cast<int64_t>(v);
    }
    default:
      throw InvalidArgument(std::string(key), std::string("metadata value in ") + m_fileName + " is " +
                                                  ggufValueTypeName(value.type()) + ", expected an integer type");
  }
}

void GgufMetadata::throwWrongType(std::string_view key, GgufValueType actual, GgufValueType expected) const {
  throw InvalidArgument(std::string(key), std::string("metadata value in ") + m_fileName + " is " +
                                              ggufValueTypeName(actual) + ", expected " + ggufValueTypeName(expected));
}

void GgufMetadata::throwWrongElementType(std::string_view key, GgufValueType actual, GgufValueType expected) const {
  throw InvalidArgument(std::string(key), std::string("metadata value in ") + m_fileName + " is an ARRAY of " +
                                              ggufValueTypeName(actual) + ", expected an ARRAY of " +
                                              ggufValueTypeName(expected));
}

}  // namespace vkattn
