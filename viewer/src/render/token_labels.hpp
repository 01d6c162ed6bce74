// Token labels around a heatmap: cut to a length, and column labels set standing above the map,
// either turned a quarter turn (Latin scripts) or upright one glyph under the other (CJK, which
// reads wrongly turned sideways).
#pragma once

#include <imgui.h>

#include <cstddef>
#include <string>

namespace vkattn::viewer {

// UTF-8 text cut to at most `maxChars` code points, ".." marking the cut.
std::string shortenLabel(const std::string& text, std::size_t maxChars);

// True when the text holds CJK ideographs, kana or hangul (set upright, not turned).
bool isUprightScript(const std::string& text);

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
