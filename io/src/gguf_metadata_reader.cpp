#include "gguf_metadata_reader.hpp"

#include <string>

namespace vkattn {
namespace {

constexpr uint32_t kValueTypes = 13;

// The fewest bytes one value of a type takes in the file: what an array's count is checked against
// before anything is allocated for it.
uint64_t minimumValueBytes(GgufValueType type) {
  switch (type) {
    case GgufValueType::UInt8:
    case GgufValueType::Int8:
    case GgufValueType::Bool:
      return 1;
    case GgufValueType::UInt16:
    case GgufValueType::Int16:
      return 2;
    case GgufValueType::UInt32:
    case GgufValueType::Int32:
    case GgufValueType::Float32:
      return 4;
    case GgufValueType::UInt64:
    case GgufValueType::Int64:
    case GgufValueType::Float64:
    case GgufValueType::String:
      return 8;  // the length alone
    case GgufValueType::Array:
      return 12;  // element type and count alone
  }
  return 1;
}

GgufValueType readValueType(GgufCursor& cursor, const char* what) {
  const uint32_t id = cursor.read<uint32_t>(what);
  if (id >= kValueTypes)
    throw InvalidArgument(cursor.fileName(),
                          std::string(what) + " " + std::to_string(id) + " is not a GGUF value type (0 to 12)");
  return static_cast<GgufValueType>(id);
}

GgufValue readValue(GgufCursor& cursor, GgufValueType type, int depth);

GgufValue readArray(GgufCursor& cursor, int depth) {
  if (depth >= kGgufMaxArrayDepth)
    throw InvalidArgument(cursor.fileName(),
                          "arrays nest deeper than " + std::to_string(kGgufMaxArrayDepth) + " levels");
  GgufArray array;
  array.elementType = readValueType(cursor, "array element type");
  const uint64_t count = cursor.read<uint64_t>("array length");
  const uint64_t each = minimumValueBytes(array.elementType);
  if (count > cursor.remaining() / each)
    throw InvalidArgument(cursor.fileName(), "an ARRAY of " + std::to_string(count) + " " +
                                                 ggufValueTypeName(array.elementType) + " values at byte " +
                                                 std::to_string(cursor.position()) + " needs at least " +
                                                 std::to_string(count) + " x " + std::to_string(each) +
                                                 " bytes, but the file ends at byte " + std::to_string(cursor.size()));
  array.items.reserve(static_cast<std::size_t>(count));
  for (uint64_t i = 0; i < count; ++i) array.items.push_back(readValue(cursor, array.elementType, depth + 1));
  return GgufValue(std::move(array));
}

GgufValue readValue(GgufCursor& cursor, GgufValueType type, int depth) {
  switch (type) {
    case GgufValueType::UInt8:
      return GgufValue(cursor.read<uint8_t>("UINT8 value"));
    case GgufValueType::Int8:
      return GgufValue(cursor.read<int8_t>("INT8 value"));
    case GgufValueType::UInt16:
      return GgufValue(cursor.read<uint16_t>("UINT16 value"));
    case GgufValueType::Int16:
      return GgufValue(cursor.read<int16_t>("INT16 value"));
    case GgufValueType::UInt32:
      return GgufValue(cursor.read<uint32_t>("UINT32 value"));
    case GgufValueType::Int32:
      return GgufValue(cursor.read<int32_t>("INT32 value"));
    case GgufValueType::Float32:
      return GgufValue(cursor.read<float>("FLOAT32 value"));
    case GgufValueType::UInt64:
      return GgufValue(cursor.read<uint64_t>("UINT64 value"));
    case GgufValueType::Int64:
      return GgufValue(cursor.read<int64_t>("INT64 value"));
    case GgufValueType::Float64:
      return GgufValue(cursor.read<double>("FLOAT64 value"));
    case GgufValueType::String:
      return GgufValue(cursor.readString("STRING value"));
    case GgufValueType::Array:
      return readArray(cursor, depth);
    case GgufValueType::Bool: {
      const uint8_t byte = cursor.read<uint8_t>("BOOL value");
      if (byte > 1)
        throw InvalidArgument(cursor.fileName(), "BOOL value " + std::to_string(byte) + " at byte " +
                                                     std::to_string(cursor.position() - 1) + " is neither 0 nor 1");
      return GgufValue(byte == 1);
    }
  }
  throw InvalidArgument(cursor.fileName(), "value type " + std::to_string(static_cast<uint32_t>(type)) + " is unknown");
}

}  // namespace

GgufMetadata readGgufMetadata(GgufCursor& cursor, uint64_t count) {
  // A key/value pair takes at least 13 bytes: key length, value type, a one-byte value.
  constexpr uint64_t kMinimumEntryBytes = 8 + 4 + 1;
  if (count > cursor.remaining() / kMinimumEntryBytes)
    throw InvalidArgument(cursor.fileName(), "metadata count " + std::to_string(count) + " needs at least " +
                                                 std::to_string(count) + " x 13 bytes, but only " +
                                                 std::to_string(cursor.remaining()) + " remain after the header");
  GgufMetadata metadata(cursor.fileName());
  for (uint64_t i = 0; i < count; ++i) {
    std::string key;
    try {
      key = cursor.readString("metadata key");
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(e.argument(), "metadata entry " + std::to_string(i) + ": " + e.problem());
    }
    try {
      const GgufValueType type = readValueType(cursor, "value type");
      GgufValue value = readValue(cursor, type, 0);
      if (metadata.contains(key)) throw InvalidArgument(cursor.fileName(), "the key appears twice");
      metadata.add(std::move(key), std::move(value));
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(e.argument(), "metadata '" + key + "': " + e.problem());
    }
  }
  return metadata;
}

}  // namespace vkattn
