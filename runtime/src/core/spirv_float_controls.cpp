#include "vkattn/core/spirv_float_controls.hpp"

#include <cstring>
#include <string_view>

#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

// From the SPIR-V specification (unified): opcodes, the capability and the execution mode.
constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kOpExtension = 10, kOpEntryPoint = 15, kOpExecutionMode = 16, kOpCapability = 17;
constexpr uint32_t kOpTypeFloat = 22, kOpExecutionModeId = 331;
constexpr uint32_t kCapabilitySignedZeroInfNanPreserve = 4466;
constexpr uint32_t kExecutionModeSignedZeroInfNanPreserve = 4461;
constexpr uint32_t kVersion14 = 0x00010400;
constexpr std::string_view kExtension = "SPV_KHR_float_controls";

uint32_t instruction(uint32_t op, uint32_t words) {
  return words << 16 | op;
}

void appendExtension(std::vector<uint32_t>& out) {
  const std::size_t words = kExtension.size() / 4 + 1;  // nul-terminated, padded to whole words
  std::vector<uint32_t> literal(words, 0);
  std::memcpy(literal.data(), kExtension.data(), kExtension.size());
  out.push_back(instruction(kOpExtension, static_cast<uint32_t>(1 + words)));
  out.insert(out.end(), literal.begin(), literal.end());
}

}  // namespace

std::vector<uint32_t> withNanPreserve(std::span<const uint32_t> code, bool float16, bool float32) {
  if (code.size() < 5 || code[0] != kMagic) throw Error("not a SPIR-V module (bad magic number)");
  // Where each kind of instruction ends (the logical layout orders capabilities, extensions,
  // imports, memory model, entry points, execution modes), what is declared and preserved.
  std::size_t capabilitiesEnd = 5, extensionsEnd = 5, modesEnd = 5;
  bool hasCapability = false, hasExtension = false;
  bool declares16 = false, declares32 = false, preserves16 = false, preserves32 = false;
  std::vector<uint32_t> entryPoints;
  for (std::size_t at = 5; at < code.size();) {
    const uint32_t count = code[at] >> 16, op = code[at] & 0xffffu;
    if (count == 0 || at + count > code.size()) throw Error("SPIR-V module: instruction runs past the end");
    const std::size_t end = at + count;
    if (op == kOpCapability) {
      capabilitiesEnd = extensionsEnd = modesEnd = end;
      hasCapability = hasCapability || (count > 1 && code[at + 1] == kCapabilitySignedZeroInfNanPreserve);
    } else if (op == kOpExtension) {
      extensionsEnd = modesEnd = end;
      // The literal with its terminating nul, so a longer name with this prefix does not match.
      hasExtension = hasExtension || (count - 1 >= kExtension.size() / 4 + 1 &&
                                      std::memcmp(&code[at + 1], kExtension.data(), kExtension.size() + 1) == 0);
    } else if (op == kOpEntryPoint || op == kOpExecutionMode || op == kOpExecutionModeId) {
      modesEnd = end;
      if (op == kOpEntryPoint && count > 2) entryPoints.push_back(code[at + 2]);
      if (op == kOpExecutionMode && count > 3 && code[at + 2] == kExecutionModeSignedZeroInfNanPreserve) {
        preserves16 = preserves16 || code[at + 3] == 16;
        preserves32 = preserves32 || code[at + 3] == 32;
      }
    } else if (op == kOpTypeFloat && count > 2) {
      declares16 = declares16 || code[at + 2] == 16;
      declares32 = declares32 || code[at + 2] == 32;
    }
    at = end;
  }
  std::vector<uint32_t> widths;
  if (float16 && declares16 && !preserves16) widths.push_back(16);
  if (float32 && declares32 && !preserves32) widths.push_back(32);
  if (widths.empty() || entryPoints.empty()) return {code.begin(), code.end()};

  std::vector<uint32_t> out(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(capabilitiesEnd));
  out.reserve(code.size() + 16);
  if (!hasCapability) out.insert(out.end(), {instruction(kOpCapability, 2), kCapabilitySignedZeroInfNanPreserve});
  out.insert(out.end(), code.begin() + static_cast<std::ptrdiff_t>(capabilitiesEnd),
             code.begin() + static_cast<std::ptrdiff_t>(extensionsEnd));
  if (!hasExtension && code[1] < kVersion14) appendExtension(out);
  out.insert(out.end(), code.begin() + static_cast<std::ptrdiff_t>(extensionsEnd),
             code.begin() + static_cast<std::ptrdiff_t>(modesEnd));
  for (uint32_t entry : entryPoints)
    for (uint32_t width : widths)
      out.insert(out.end(), {instruction(kOpExecutionMode, 4), entry, kExecutionModeSignedZeroInfNanPreserve, width});
  out.insert(out.end(), code.begin() + static_cast<std::ptrdiff_t>(modesEnd), code.end());
  return out;
}

}  // namespace vkattn
