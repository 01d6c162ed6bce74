// The merge loop both BPE flavours share: a text's UTF-8 characters start as symbols, and the
// adjacent pair that `priority` ranks highest merges into one symbol, the leftmost among equals,
// until no pair has a priority (nullopt: that pair never merges). SentencePiece BPE ranks a pair
// by the score of the token it forms, byte-level BPE by its place in the merge list.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace vkattn::tokenizers {

using PairPriority = std::function<std::optional<double>(std::string_view left, std::string_view right)>;

// The merged symbols, in order, as views of `text`.
std::vector<std::string_view> mergePairs(std::string_view text, const PairPriority& priority);

}  // namespace vkattn::tokenizers
