// GPT-2's reversible map from bytes to printable Unicode characters (bytes_to_unicode in its
// encoder.py): the printable Latin-1 bytes ('!'..'~', U+00A1..U+00AC, U+00AE..U+00FF) stand for
// themselves, and the other 68 bytes, in increasing order, for U+0100, U+0101, ...
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vkattn::tokenizers {

// The code point standing for `byte`.
uint32_t byteToCodePoint(unsigned char byte) noexcept;
// The byte a code point stands for, or -1 when it stands for none.
int codePointToByte(uint32_t cp) noexcept;

// Each byte of `bytes` as its character, in UTF-8.
std::string bytesToUnicode(std::string_view bytes);
// The inverse for a token's text: characters that stand for no byte are kept as their UTF-8.
std::string unicodeToBytes(std::string_view text);

}  // namespace vkattn::tokenizers
