// The attention folder's token files (attention_folder.hpp): reading, writing, and which file
// labels which axis of a map.
#include <fstream>

#include "vkattn/core/error.hpp"
#include "vkattn/io/attention_folder.hpp"
#include "vkattn/io/utf8.hpp"

namespace vkattn::io {
namespace {

namespace fs = std::filesystem;

void addNote(std::string& notes, const std::string& note) {
  if (note.empty() || notes.find(note) != std::string::npos) return;
  notes += (notes.empty() ? "" : "; ") + note;
}

}  // namespace

TokenFile readTokenFile(const fs::path& path, const std::string& argument) {
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

void writeTokenFile(const fs::path& path, const std::vector<std::string>& tokens) {
  std::ofstream out(path, std::ios::binary);
  for (const std::string& token : tokens) out << markLineBreaks(token) << '\n';
  if (!out) throw InvalidArgument(path.string(), "cannot write the file");
}

std::vector<std::string> positionLabels(int64_t n) {
  std::vector<std::string> labels;
  for (int64_t i = 0; i < n; ++i) labels.push_back(std::to_string(i));
  return labels;
}

AxisTokens readAxisTokens(const AxisTokenFiles& files, int64_t rows, int64_t cols) {
  AxisTokens out;
  auto read = [&](const TokenFileRef& ref) {
    TokenFile file = readTokenFile(ref.path, ref.argument);
    addNote(out.note, file.note);
    return std::move(file.tokens);
  };
  std::vector<std::string> both;
  const bool haveBoth = !files.both.path.empty();
  if (haveBoth) both = read(files.both);
  const auto bothCount = static_cast<int64_t>(both.size());
  if (haveBoth && bothCount != rows && bothCount != cols && files.rows.path.empty() && files.cols.path.empty())
    throw InvalidArgument(files.both.argument, files.both.path + " has " + std::to_string(bothCount) +
                                                   " tokens; the map has " + std::to_string(rows) + " rows and " +
                                                   std::to_string(cols) + " columns");
  auto axis = [&](const TokenFileRef& own, int64_t n) {
    if (!own.path.empty()) {
      auto tokens = read(own);
      if (static_cast<int64_t>(tokens.size()) != n)
        throw InvalidArgument(own.argument, own.path + " has " + std::to_string(tokens.size()) +
                                                " tokens; the map has " + std::to_string(n));
      return tokens;
    }
    if (haveBoth && bothCount == n) return both;
    return positionLabels(n);
  };
  out.rows = axis(files.rows, rows);
  out.cols = axis(files.cols, cols);
  return out;
}

AxisTokenFiles folderTokenFiles(const fs::path& dir) {
  auto existing = [&](const char* name) {
    const fs::path p = dir / name;
    return fs::exists(p) ? TokenFileRef{p.string(), p.string()} : TokenFileRef{};
  };
  return {existing(kTokensFile), existing(kRowTokensFile), existing(kColTokensFile)};
}

}  // namespace vkattn::io
