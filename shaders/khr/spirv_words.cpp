// Reading and writing SPIR-V word streams (binary words and glslc's -mfmt=num text).
#include "spirv_words.hpp"

#include <cctype>
#include <cstring>
#include <sstream>

namespace vkattn::spirv {

const char* toString(MatrixUse use) noexcept {
  switch (use) {
    case MatrixUse::A: return "MatrixA";
    case MatrixUse::B: return "MatrixB";
    case MatrixUse::Accumulator: return "MatrixAccumulator";
  }
  return "?";
}

Module parse(std::span<const uint32_t> words) {
  if (words.size() < kHeaderWords) throw SpirvError("SPIR-V module shorter than its 5-word header");
  if (words[0] != kMagic) throw SpirvError("not a SPIR-V module (magic number missing or byte-swapped)");
  Module module;
  module.header.assign(words.begin(), words.begin() + kHeaderWords);
  std::size_t at = kHeaderWords;
  while (at < words.size()) {
    const uint32_t count = words[at] >> 16;
    if (count == 0 || at + count > words.size())
      throw SpirvError("instruction at word " + std::to_string(at) + " has a bad word count " + std::to_string(count));
    module.instructions.push_back({std::vector<uint32_t>(words.begin() + at, words.begin() + at + count)});
    at += count;
  }
  return module;
}

std::vector<uint32_t> serialize(const Module& module) {
  std::vector<uint32_t> words = module.header;
  for (const auto& instruction : module.instructions) words.insert(words.end(), instruction.words.begin(), instruction.words.end());
  return words;
}

Instruction makeInstruction(uint32_t opcode, std::vector<uint32_t> operands) {
  Instruction instruction;
  instruction.words.reserve(operands.size() + 1);
  instruction.words.push_back(static_cast<uint32_t>((operands.size() + 1) << 16) | opcode);
  instruction.words.insert(instruction.words.end(), operands.begin(), operands.end());
  return instruction;
}

std::vector<uint32_t> encodeString(const std::string& text) {
  std::vector<uint32_t> words(text.size() / 4 + 1, 0);
  std::memcpy(words.data(), text.data(), text.size());  // little-endian byte order, as SPIR-V requires
  return words;
}

std::string decodeString(const Instruction& instruction, std::size_t first) {
  std::string text;
  for (std::size_t i = first + 1; i < instruction.words.size(); ++i)
    for (int b = 0; b < 4; ++b) {
      const char c = static_cast<char>((instruction.words[i] >> (8 * b)) & 0xffu);
      if (c == '\0') return text;
      text += c;
    }
  throw SpirvError("literal string without a terminating nul");
}

std::vector<uint32_t> parseNumberText(const std::string& text) {
  std::vector<uint32_t> words;
  std::size_t at = 0;
  while (at < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[at])) || text[at] == ',') {
      ++at;
      continue;
    }
    std::size_t used = 0;
    unsigned long value = 0;
    try {
      value = std::stoul(text.substr(at, 12), &used, 0);
    } catch (const std::exception&) {
      throw SpirvError("unexpected text at character " + std::to_string(at) + " of a SPIR-V number list");
    }
    if (value > 0xffffffffu) throw SpirvError("number past 32 bits in a SPIR-V number list");
    words.push_back(static_cast<uint32_t>(value));
    at += used;
  }
  return words;
}

std::string toNumberText(std::span<const uint32_t> words) {
  std::ostringstream out;
  out << std::hex;
  for (std::size_t i = 0; i < words.size(); ++i) out << "0x" << words[i] << (i % 8 == 7 ? ",\n" : ",");
  out << "\n";
  return out.str();
}

}  // namespace vkattn::spirv
