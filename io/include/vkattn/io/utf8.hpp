// UTF-8 text: encoding one Unicode code point (token text written to attention folders and drawn
// as labels), and making any bytes printable as UTF-8 (token files that are not).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vkattn::io {

// Appends code point `cp` (at most 0x10FFFF) to `out` as 1 to 4 UTF-8 bytes.
void appendUtf8(std::string& out, uint32_t cp);

// `text` with every byte that is not part of a well-formed UTF-8 sequence (stray continuation
// bytes, truncated or overlong sequences, surrogates, code points past U+10FFFF) written as \xNN;
// `escaped`, when given, receives how many were.
std::string escapeInvalidUtf8(std::string_view text, std::size_t* escaped = nullptr);

// A line break ("\r\n", "\n" or "\r") as the visible mark "↵", the way token files write it (one
// token per line) and labels draw it.
std::string markLineBreaks(std::string_view text);
// `text` drawn so that no character is blank: line breaks "↵", spaces "·", tabs "→", other
// control characters as their Unicode control pictures (U+2400 + code, "␡" for DEL). A model's
// tokens such as " the", "\n" or "\t" read this way as labels.
std::string visibleWhitespace(std::string_view text);

}  // namespace vkattn::io
