#include "isa_main_loop.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace vkattn::cli {
namespace {

// Plain string searches on each line's mnemonic (its first word) and operands (up to a comment):
// ISA listings run to tens of thousands of lines per module.
struct Instruction {
  std::string_view mnemonic, operands;
};
Instruction instructionOf(std::string_view line) {
  line = line.substr(0, line.find(';'));
  const std::size_t at = line.find_first_not_of(" \t");
  if (at == std::string_view::npos) return {};
  const std::size_t end = std::min(line.find_first_of(" \t", at), line.size());
  return {line.substr(at, end - at), line.substr(end)};
}
bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The label a block starts with (`BB12:`), or empty.
std::string_view labelOf(std::string_view line) {
  const std::size_t at = line.find_first_not_of(" \t");
  if (at == std::string_view::npos || line.compare(at, 2, "BB") != 0) return {};
  std::size_t end = at + 2;
  while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
  if (end == at + 2 || end >= line.size() || line[end] != ':') return {};
  return line.substr(at, end - at);
}

// A branch's target label and whether the branch is unconditional; an empty target if the
// instruction is no branch to a label.
std::pair<std::string_view, bool> branchOf(const Instruction& in) {
  const bool unconditional = in.mnemonic == "s_branch";
  if (!unconditional && !startsWith(in.mnemonic, "s_cbranch_")) return {};
  const std::size_t target = in.operands.find("BB");
  if (target == std::string_view::npos) return {};
  std::size_t end = target + 2;
  while (end < in.operands.size() && std::isdigit(static_cast<unsigned char>(in.operands[end]))) ++end;
  return {in.operands.substr(target, end - target), unconditional};
}

bool isMatrix(const Instruction& in) {
  return startsWith(in.mnemonic, "v_wmma_") || startsWith(in.mnemonic, "v_swmmac_") ||
         startsWith(in.mnemonic, "v_mfma_");
}
bool isVectorLoad(const Instruction& in) {
  return startsWith(in.mnemonic, "buffer_load_") || startsWith(in.mnemonic, "global_load_");
}
bool isFullWait(const Instruction& in) {
  return (in.mnemonic == "s_waitcnt" && in.operands.find("vmcnt(0)") != std::string_view::npos) ||
         (in.mnemonic == "s_wait_loadcnt" && in.operands.find("0x0") != std::string_view::npos);
}

// A basic block: its lines, its figures, and the blocks it may go to next.
struct Block {
  std::size_t first = 0, last = 0;
  int matrix = 0, loads = 0, waits = 0;
  std::vector<std::size_t> next;
};

}  // namespace

std::optional<IsaMainLoop> amdMainLoop(std::string_view isa) {
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at <= isa.size();) {
    const std::size_t end = std::min(isa.find('\n', at), isa.size());
    lines.push_back(isa.substr(at, end - at));
    at = end + 1;
  }
  // Blocks start at labels; each ends where the next starts.
  std::vector<Block> blocks;
  std::map<std::string_view, std::size_t> blockOf;  // label -> block
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view label = labelOf(lines[i]);
    if (label.empty()) continue;
    if (!blocks.empty()) blocks.back().last = i - 1;
    blockOf[label] = blocks.size();
    blocks.push_back({i, lines.size() - 1});
  }
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    Block& block = blocks[b];
    bool fallsThrough = true;
    for (std::size_t i = block.first; i <= block.last; ++i) {
      const Instruction in = instructionOf(lines[i]);
      block.matrix += isMatrix(in) ? 1 : 0;
      block.loads += isVectorLoad(in) ? 1 : 0;
      block.waits += isFullWait(in) ? 1 : 0;
      const auto [target, unconditional] = branchOf(in);
      const auto found = blockOf.find(target);
      if (target.empty() || found == blockOf.end()) continue;
      block.next.push_back(found->second);
      if (unconditional) fallsThrough = false;
    }
    if (fallsThrough && b + 1 < blocks.size()) block.next.push_back(b + 1);
  }
  std::optional<IsaMainLoop> best;
  for (std::size_t latch = 0; latch < blocks.size(); ++latch) {
    for (const std::size_t header : blocks[latch].next) {
      if (header > latch) continue;  // a forward edge: no loop
      IsaMainLoop loop{.lines = static_cast<int>(blocks[latch].last - blocks[header].first + 1)};
      for (std::size_t b = header; b <= latch; ++b) {
        loop.matrixInstructions += blocks[b].matrix;
        loop.memoryLoads += blocks[b].loads;
      }
      // The most full waits on one trip from the header to the latch: the blocks of the loop in
      // order, forward edges only (an inner loop's back edge counts once).
      std::vector<int> most(latch + 1, -1);
      most[header] = blocks[header].waits;
      for (std::size_t b = header; b <= latch; ++b) {
        if (most[b] < 0) continue;
        for (const std::size_t n : blocks[b].next)
          if (n > b && n <= latch) most[n] = std::max(most[n], most[b] + blocks[n].waits);
      }
      loop.fullMemoryWaits = std::max(most[latch], 0);
      const auto rank = [](const IsaMainLoop& l) { return std::tie(l.matrixInstructions, l.memoryLoads, l.lines); };
      if (!best || rank(loop) > rank(*best)) best = loop;
    }
  }
  return best;
}

}  // namespace vkattn::cli
