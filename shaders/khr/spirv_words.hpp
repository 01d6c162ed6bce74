// A SPIR-V module as a header plus a list of instructions (each its own words), and the few
// opcode and enumerant values the cooperative-matrix rewrite and its checker need, taken from the
// SPIR-V registry (spirv.core.grammar.json, SPV_NV_cooperative_matrix, SPV_KHR_cooperative_matrix).
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace vkattn::spirv {

namespace op {
inline constexpr uint32_t Name = 5, Line = 8, Extension = 10, Capability = 17;
inline constexpr uint32_t TypeBool = 20, TypeInt = 21, TypeFloat = 22;
inline constexpr uint32_t ConstantTrue = 41, ConstantFalse = 42, Constant = 43;
inline constexpr uint32_t SpecConstantTrue = 48, SpecConstantFalse = 49, SpecConstant = 50, SpecConstantOp = 52;
inline constexpr uint32_t Function = 54, Variable = 59, Decorate = 71, MemberDecorate = 72;
inline constexpr uint32_t ConvertFToU = 109, FConvert = 115, Bitcast = 124, Select = 169, NoLine = 317;
inline constexpr uint32_t TypeCooperativeMatrixKHR = 4456, CooperativeMatrixLoadKHR = 4457,
                          CooperativeMatrixStoreKHR = 4458, CooperativeMatrixMulAddKHR = 4459,
                          CooperativeMatrixLengthKHR = 4460;
inline constexpr uint32_t TypeCooperativeMatrixNV = 5358, CooperativeMatrixLoadNV = 5359,
                          CooperativeMatrixStoreNV = 5360, CooperativeMatrixMulAddNV = 5361,
                          CooperativeMatrixLengthNV = 5362, CooperativeMatrixTransposeNV = 5390;
}  // namespace op

namespace capability {
inline constexpr uint32_t VulkanMemoryModel = 5345, CooperativeMatrixNV = 5357, CooperativeMatrixKHR = 6022;
}

// Cooperative Matrix Use and Layout enumerants (KHR); their values double as constants' values.
enum class MatrixUse : uint32_t { A = 0, B = 1, Accumulator = 2 };
inline constexpr uint32_t kRowMajor = 0, kColumnMajor = 1;
// Cooperative Matrix Operands bits: signed components of A, B, C and the result.
inline constexpr uint32_t kSignedA = 0x1, kSignedB = 0x2, kSignedC = 0x4, kSignedResult = 0x8;

inline constexpr uint32_t kMagic = 0x07230203;
inline constexpr std::size_t kHeaderWords = 5;

const char* toString(MatrixUse use) noexcept;

struct Instruction {
  std::vector<uint32_t> words;  // words[0] holds the word count and the opcode
  uint32_t opcode() const noexcept { return words[0] & 0xffffu; }
  uint32_t operand(std::size_t i) const { return words.at(i + 1); }
  std::size_t operandCount() const noexcept { return words.size() - 1; }
};

struct Module {
  std::vector<uint32_t> header;  // magic, version, generator, bound, schema
  std::vector<Instruction> instructions;
  uint32_t bound() const noexcept { return header[3]; }
};

// Thrown for a module that cannot be read or rewritten; the message says what and where.
struct SpirvError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Module parse(std::span<const uint32_t> words);
std::vector<uint32_t> serialize(const Module& module);
Instruction makeInstruction(uint32_t opcode, std::vector<uint32_t> operands);
// A literal string operand: UTF-8 bytes, nul-terminated, padded to whole words.
std::vector<uint32_t> encodeString(const std::string& text);
// The literal string starting at operand `first` of `instruction`.
std::string decodeString(const Instruction& instruction, std::size_t first);

// glslc -mfmt=num text ("0x07230203,0x00010500,...") to words and back.
std::vector<uint32_t> parseNumberText(const std::string& text);
std::string toNumberText(std::span<const uint32_t> words);

}  // namespace vkattn::spirv
