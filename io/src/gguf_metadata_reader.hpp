// Reads a GGUF file's metadata table (key strings, value types and values) at a cursor.
#pragma once

#include <cstdint>

#include "gguf_cursor.hpp"
#include "vkattn/io/gguf_value.hpp"

namespace vkattn {

// Arrays nest at most this deep (GGUF sets no limit; this keeps hostile input cheap).
inline constexpr int kGgufMaxArrayDepth = 16;

// `count` key/value pairs; throws InvalidArgument(file, ...) naming the key for any bad value.
GgufMetadata readGgufMetadata(GgufCursor& cursor, uint64_t count);

}  // namespace vkattn
