// Token label files: one token per line, meant to be UTF-8. A file that is not (Latin-1, a
// tokenizer's raw bytes) is still read: each byte outside well-formed UTF-8 is shown as a visible
// \xNN escape, as vkattn.view shows Python's surrogate-escaped bytes, and the file and its first
// such line are named in a note that the source puts in its warning.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace vkattn::viewer {

struct TokenFile {
  std::vector<std::string> tokens;
  std::string note;  // empty when every line was UTF-8
};

// Lines of `path` (a trailing newline optional, "\r\n" read as a line break). Throws
// InvalidArgument(argument) when the file cannot be read.
TokenFile readTokenFile(const std::filesystem::path& path, const std::string& argument);

// `text` with every byte that is not part of a well-formed UTF-8 sequence (stray continuation
// bytes, truncated or overlong sequences, surrogates, code points past U+10FFFF) written as \xNN;
// `escaped`, when given, receives how many were.
std::string escapeInvalidUtf8(std::string_view text, std::size_t* escaped = nullptr);

}  // namespace vkattn::viewer
