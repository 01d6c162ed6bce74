// The length of a UTF-8 sequence from its first byte, as llama.cpp's tokenizers split text into
// characters: a stray continuation byte or an invalid lead byte counts as a character of one byte.
#pragma once

#include <cstddef>

namespace vkattn::tokenizers {

constexpr std::size_t utf8SequenceLength(unsigned char lead) noexcept {
  if (lead < 0xC0) return 1;  // ASCII, or a continuation byte out of place
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

}  // namespace vkattn::tokenizers
