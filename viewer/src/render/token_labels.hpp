// Token labels around a heatmap: cut to a length, and column labels set standing above the map,
// either turned a quarter turn (Latin scripts) or upright one glyph under the other (CJK, which
// reads wrongly turned sideways).
#pragma once

#include <imgui.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vkattn::viewer {

// UTF-8 text cut to at most `maxChars` code points, ".." marking the cut.
std::string shortenLabel(const std::string& text, std::size_t maxChars);

// True when the text holds CJK ideographs, kana or hangul (set upright, not turned).
bool isUprightScript(const std::string& text);

// A label at token `first` that names tokens [first, end): one token, or a whole word.
struct LabelSpan {
  int64_t first = 0, end = 0;
  bool operator==(const LabelSpan&) const = default;
};

// True when token i begins a word: it is past the tokens' end (a bare position), starts with
// whitespace or a non-letter (punctuation, an ideograph), or follows such a token's end. Tokens
// that are not pieces of one text (none begins with whitespace: a word-level vocabulary, names
// such as "t0", "t1") are each a word.
bool startsWord(const std::vector<std::string>& tokens, int64_t i);

// The labels of the cells [begin, end) of an axis where only one label in `step` cells fits. With
// step 1, every token. Thinned, the labels fall on word starts at least `step` apart and name the
// whole word (up to the next word start), so that a zoomed-out language model's axis reads as
// words rather than every step-th word piece. Where no word starts (a long word, digits), a
// label of one token every 2 * step cells. The choice runs from a multiple of 16 * step, so that
// a label keeps its place while the view scrolls.
std::vector<LabelSpan> labelSpans(const std::vector<std::string>& tokens, int64_t begin, int64_t end, int64_t step);

enum class ColumnLabelMode { Horizontal, Rotated, Stacked };
const char* toString(ColumnLabelMode mode) noexcept;

// How a column label of `text` is set in a cell `cellWidth` wide at `pixels`.
ColumnLabelMode columnLabelMode(ImFont* font, float pixels, const std::string& text, float cellWidth);
// The height that label takes above the map.
float columnLabelHeight(ImFont* font, float pixels, const std::string& text, ColumnLabelMode mode);

// Draws a column label centred on x, its end at `bottom` (just above the map).
void addColumnLabel(ImDrawList& list, ImFont* font, float pixels, float x, float bottom, ImU32 color,
                    const std::string& text, ColumnLabelMode mode);

// Text rotated a quarter turn counter-clockwise (reads bottom to top), its baseline end at
// `anchor`.
void addVerticalText(ImDrawList& list, ImFont* font, float size, ImVec2 anchor, ImU32 color, const std::string& text);

}  // namespace vkattn::viewer
