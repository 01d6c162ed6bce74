#include "vkattn/io/utf8.hpp"

#include <cstdio>

namespace vkattn::io {
namespace {

// The length of the well-formed UTF-8 sequence at s[0..n), or 0 when there is none (Unicode's
// table of well-formed byte sequences: no overlongs, no surrogates, nothing past U+10FFFF).
std::size_t sequenceLength(const unsigned char* s, std::size_t n) {
  const unsigned char c = s[0];
  if (c < 0x80) return 1;
  std::size_t length = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range
  if (c >= 0xc2 && c <= 0xdf) {
    length = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    length = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    length = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (n < length || s[1] < lo || s[1] > hi) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if ((s[k] & 0xc0) != 0x80) return 0;
  return length;
}

}  // namespace

std::string escapeInvalidUtf8(std::string_view text, std::size_t* escaped) {
  std::string out;
  out.reserve(text.size());
  std::size_t count = 0;
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = sequenceLength(s + i, text.size() - i);
    if (length == 0) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", s[i]);
      out += hex;
      ++count;
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  if (escaped) *escaped = count;
  return out;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

std::string markLineBreaks(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' || text[i] == '\n') {
      out += "\u21b5";
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string visibleWhitespace(std::string_view text) {
  std::string out;
  for (const char c : markLineBreaks(text)) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == ' ')
      out += "\u00b7";
    else if (c == '\t')
      out += "\u2192";
    else if (byte < 0x20)
      appendUtf8(out, 0x2400u + byte);
    else if (byte == 0x7f)
      out += "\u2421";
    else
      out += c;
  }
  return out;
}

}  // namespace vkattn::io
