#include "pair_merge.hpp"

#include <algorithm>
#include <queue>

#include "utf8_length.hpp"

namespace vkattn::tokenizers {
namespace {

// A run of characters merged so far; a doubly linked list over the text, where a merged-away
// symbol keeps length 0.
struct Symbol {
  int prev, next;
  std::size_t start, length;
};

struct Candidate {
  int left, right;
  double priority;
  std::size_t length;  // of the merged text: a candidate whose symbols changed since is stale
};

// Highest priority first; among equal priorities, the leftmost pair.
struct LowerPriority {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.priority < b.priority || (a.priority == b.priority && a.left > b.left);
  }
};

}  // namespace

std::vector<std::string_view> mergePairs(std::string_view text, const PairPriority& priority) {
  std::vector<Symbol> symbols;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = std::min(utf8SequenceLength(static_cast<unsigned char>(text[at])), text.size() - at);
    const int index = static_cast<int>(symbols.size());
    symbols.push_back({index - 1, at + length == text.size() ? -1 : index + 1, at, length});
    at += length;
  }
  std::priority_queue<Candidate, std::vector<Candidate>, LowerPriority> queue;
  const auto tryPair = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const Symbol& l = symbols[left];
    const Symbol& r = symbols[right];
    if (const auto p = priority(text.substr(l.start, l.length), text.substr(r.start, r.length)))
      queue.push({left, right, *p, l.length + r.length});
  };
  for (int i = 1; i < static_cast<int>(symbols.size()); ++i) tryPair(i - 1, i);
  while (!queue.empty()) {
    const Candidate best = queue.top();
    queue.pop();
    Symbol& left = symbols[best.left];
    Symbol& right = symbols[best.right];
    if (left.length == 0 || right.length == 0 || left.length + right.length != best.length) continue;
    left.length += right.length;
    right.length = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = best.left;
    tryPair(left.prev, best.left);
    tryPair(best.left, left.next);
  }
  std::vector<std::string_view> merged;
  for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[i].next)
    merged.push_back(text.substr(symbols[i].start, symbols[i].length));
  return merged;
}

}  // namespace vkattn::tokenizers
