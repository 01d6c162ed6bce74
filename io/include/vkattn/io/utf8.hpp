// UTF-8 encoding of one Unicode code point: token text written to attention folders and drawn as
// labels.
#pragma once

#include <cstdint>
#include <string>

namespace vkattn::io {

// Appends code point `cp` (at most 0x10FFFF) to `out` as 1 to 4 UTF-8 bytes.
void appendUtf8(std::string& out, uint32_t cp);

}  // namespace vkattn::io
