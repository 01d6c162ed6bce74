#include "byte_to_unicode.hpp"

#include <algorithm>
#include <array>

#include "utf8_length.hpp"
#include "vkattn/io/utf8.hpp"

namespace vkattn::tokenizers {
namespace {

constexpr bool standsForItself(unsigned b) {
  return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
}

struct Table {
  std::array<uint32_t, 256> toCodePoint{};
  std::array<std::string, 256> toUtf8;
  Table() {
    uint32_t next = 256;
    for (unsigned b = 0; b < 256; ++b) {
      toCodePoint[b] = standsForItself(b) ? b : next++;
      io::appendUtf8(toUtf8[b], toCodePoint[b]);
    }
  }
};

const Table& table() {
  static const Table instance;
  return instance;
}

}  // namespace

uint32_t byteToCodePoint(unsigned char byte) noexcept {
  return table().toCodePoint[byte];
}

int codePointToByte(uint32_t cp) noexcept {
  if (cp < 256) return standsForItself(cp) ? static_cast<int>(cp) : -1;
  // The stand-ins count up from 256 through the bytes that do not stand for themselves.
  uint32_t next = 256;
  for (unsigned b = 0; b < 256; ++b)
    if (!standsForItself(b) && next++ == cp) return static_cast<int>(b);
  return -1;
}

std::string bytesToUnicode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) out += table().toUtf8[static_cast<unsigned char>(c)];
  return out;
}

std::string unicodeToBytes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = std::min(utf8SequenceLength(static_cast<unsigned char>(text[i])), text.size() - i);
    uint32_t cp = static_cast<unsigned char>(text[i]);
    if (length > 1) {
      cp &= 0x7Fu >> length;
      for (std::size_t k = 1; k < length; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
    }
    const int byte = codePointToByte(cp);
    if (byte >= 0)
      out += static_cast<char>(byte);
    else
      out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

}  // namespace vkattn::tokenizers
