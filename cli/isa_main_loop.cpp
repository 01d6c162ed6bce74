#include "isa_main_loop.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

namespace vkattn::cli {
namespace {

const std::regex kLabel(R"(^\s*(BB\d+):)");
const std::regex kBranch(R"(\bs_(c?branch)\w*\s+(BB\d+)\b)");
const std::regex kMatrix(R"(\b(v_wmma_|v_swmmac_|v_mfma_))");
const std::regex kLoad(R"(\b(buffer_load_|global_load_))");
const std::regex kFullWait(R"(\bs_waitcnt\b[^;]*\bvmcnt\(0\)|\bs_wait_loadcnt\s+0x0\b)");

// A basic block: its first and last line, and the blocks it may go to next.
struct Block {
  std::size_t first = 0, last = 0;
  std::vector<std::size_t> next;  // block indices
};

int count(const std::vector<std::string>& lines, std::size_t first, std::size_t last, const std::regex& re) {
  int n = 0;
  for (std::size_t i = first; i <= last; ++i) n += std::regex_search(lines[i], re) ? 1 : 0;
  return n;
}

}  // namespace

std::optional<IsaMainLoop> amdMainLoop(std::string_view isa) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at <= isa.size();) {
    const std::size_t end = std::min(isa.find('\n', at), isa.size());
    lines.emplace_back(isa.substr(at, end - at));
    at = end + 1;
  }
  // Blocks start at labels; each ends where the next starts.
  std::vector<Block> blocks;
  std::map<std::string, std::size_t> blockOf;  // label -> block
  std::smatch m;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!std::regex_search(lines[i], m, kLabel)) continue;
    if (!blocks.empty()) blocks.back().last = i - 1;
    blockOf[m[1]] = blocks.size();
    blocks.push_back({i, lines.size() - 1, {}});
  }
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    bool fallsThrough = true;
    for (std::size_t i = blocks[b].first; i <= blocks[b].last; ++i) {
      if (!std::regex_search(lines[i], m, kBranch) || !blockOf.count(m[2])) continue;
      blocks[b].next.push_back(blockOf[m[2]]);
      if (m[1] == "branch") fallsThrough = false;  // unconditional
    }
    if (fallsThrough && b + 1 < blocks.size()) blocks[b].next.push_back(b + 1);
  }
  std::optional<IsaMainLoop> best;
  for (std::size_t latch = 0; latch < blocks.size(); ++latch) {
    for (const std::size_t header : blocks[latch].next) {
      if (header > latch) continue;  // a forward edge: no loop
      const std::size_t first = blocks[header].first, last = blocks[latch].last;
      // The most full waits on one trip from the header to the latch: the blocks of the loop in
      // order, forward edges only (an inner loop's back edge counts once).
      std::vector<int> most(latch + 1, -1);
      most[header] = count(lines, blocks[header].first, blocks[header].last, kFullWait);
      for (std::size_t b = header; b <= latch; ++b) {
        if (most[b] < 0) continue;
        for (const std::size_t n : blocks[b].next)
          if (n > b && n <= latch)
            most[n] = std::max(most[n], most[b] + count(lines, blocks[n].first, blocks[n].last, kFullWait));
      }
      const IsaMainLoop loop{.lines = static_cast<int>(last - first + 1),
                             .matrixInstructions = count(lines, first, last, kMatrix),
                             .memoryLoads = count(lines, first, last, kLoad),
                             .fullMemoryWaits = std::max(most[latch], 0)};
      const auto rank = [](const IsaMainLoop& l) { return std::tie(l.matrixInstructions, l.memoryLoads, l.lines); };
      if (!best || rank(loop) > rank(*best)) best = loop;
    }
  }
  return best;
}

}  // namespace vkattn::cli
