#include "sources/token_file.hpp"

#include <cstdio>
#include <fstream>

#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
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

TokenFile readTokenFile(const std::filesystem::path& path, const std::string& argument) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgument(argument, "cannot read token file " + path.string());
  TokenFile file;
  std::size_t badLines = 0, firstBad = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::size_t escaped = 0;
    file.tokens.push_back(escapeInvalidUtf8(line, &escaped));
    if (escaped > 0 && badLines++ == 0) firstBad = file.tokens.size();
  }
  if (badLines > 0)
    file.note = path.string() + " is not UTF-8: line " + std::to_string(firstBad) + " (\"" + file.tokens[firstBad - 1] +
                "\")" + (badLines > 1 ? " and " + std::to_string(badLines - 1) + " more" : std::string()) +
                " shown with \\xNN for each byte that is not";
  return file;
}

}  // namespace vkattn::viewer
