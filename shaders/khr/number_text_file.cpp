// See number_text_file.hpp.
#include "number_text_file.hpp"

#include <fstream>
#include <iterator>
#include <string>

#include "spirv_words.hpp"

namespace vkattn::spirv {

std::vector<uint32_t> readNumberTextFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw SpirvError("cannot read " + path.string());
  return parseNumberText(std::string(std::istreambuf_iterator<char>(in), {}));
}

void writeNumberTextFile(const std::filesystem::path& path, std::span<const uint32_t> words) {
  std::ofstream out(path);
  out << toNumberText(words);
  if (!out) throw SpirvError("cannot write " + path.string());
}

}  // namespace vkattn::spirv
