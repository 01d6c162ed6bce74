#include "spirv_interface.hpp"

#include <map>

#include "vkattn/core/error.hpp"

namespace vkattn::detail {
namespace {

// Opcodes and decorations from the SPIR-V specification (unified, section 3).
constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kOpTypeBool = 20, kOpTypeInt = 21, kOpTypeFloat = 22;
constexpr uint32_t kOpSpecConstantTrue = 48, kOpSpecConstantFalse = 49, kOpSpecConstant = 50;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kDecorationSpecId = 1, kDecorationBinding = 33, kDecorationDescriptorSet = 34;

}  // namespace

SpirvInterface readSpirvInterface(std::span<const uint32_t> words) {
  if (words.size() < 5 || words[0] != kMagic) throw Error("not a SPIR-V module (bad magic number)");
  std::map<uint32_t, SpecKind> types;             // result id of a scalar type -> kind
  std::map<uint32_t, uint32_t> specIdOf;          // constant's result id -> SpecId
  std::map<uint32_t, SpecKind> constantKinds;     // constant's result id -> kind
  std::map<uint32_t, uint32_t> bindingOf, setOf;  // variable id -> binding / descriptor set
  for (std::size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16, op = words[at] & 0xffff;
    if (count == 0 || at + count > words.size()) throw Error("SPIR-V module: instruction runs past the end");
    const uint32_t* w = &words[at];
    if (op == kOpTypeBool) types[w[1]] = SpecKind::Bool;
    if (op == kOpTypeInt) types[w[1]] = w[3] ? SpecKind::Int : SpecKind::Uint;
    if (op == kOpTypeFloat) types[w[1]] = SpecKind::Float;
    if ((op == kOpSpecConstantTrue || op == kOpSpecConstantFalse || op == kOpSpecConstant) && types.count(w[1]))
      constantKinds[w[2]] = types[w[1]];
    if (op == kOpDecorate && count >= 4) {
      if (w[2] == kDecorationSpecId) specIdOf[w[1]] = w[3];
      if (w[2] == kDecorationBinding) bindingOf[w[1]] = w[3];
      if (w[2] == kDecorationDescriptorSet) setOf[w[1]] = w[3];
    }
    at += count;
  }
  SpirvInterface result;
  for (const auto& [id, specId] : specIdOf)
    if (auto it = constantKinds.find(id); it != constantKinds.end()) result.specConstants[specId] = it->second;
  for (const auto& [id, binding] : bindingOf)
    if (auto it = setOf.find(id); it == setOf.end() || it->second == 0) result.bindings.insert(binding);
  return result;
}

}  // namespace vkattn::detail
