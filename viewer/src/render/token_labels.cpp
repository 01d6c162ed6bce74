#include "render/token_labels.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "render/fonts.hpp"
#include "vkattn/io/utf8.hpp"

namespace vkattn::viewer {
namespace {

bool isUprightCodePoint(uint32_t cp) {
  return (cp >= 0x2e80 && cp <= 0x9fff) || (cp >= 0xac00 && cp <= 0xd7af) || (cp >= 0xf900 && cp <= 0xfaff) ||
         (cp >= 0xff00 && cp <= 0xffef);
}

float textWidth(ImFont* font, float pixels, const std::string& text) {
  return font->CalcTextSizeA(pixels, FLT_MAX, 0, text.c_str()).x;
}

}  // namespace

std::string shortenLabel(const std::string& text, std::size_t maxChars) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) continue;  // continuation byte
    if (++count > maxChars) return text.substr(0, i) + "..";
  }
  return text;
}

bool isUprightScript(const std::string& text) {
  const auto cps = decodeUtf8(text);
  return std::any_of(cps.begin(), cps.end(), isUprightCodePoint);
}

const char* toString(ColumnLabelMode mode) noexcept {
  switch (mode) {
    case ColumnLabelMode::Horizontal:
      return "horizontal";
    case ColumnLabelMode::Rotated:
      return "rotated";
    case ColumnLabelMode::Stacked:
      return "stacked";
  }
  return "?";
}

ColumnLabelMode columnLabelMode(ImFont* font, float pixels, const std::string& text, float cellWidth) {
  if (textWidth(font, pixels, text) <= cellWidth - 2.0f) return ColumnLabelMode::Horizontal;
  return isUprightScript(text) ? ColumnLabelMode::Stacked : ColumnLabelMode::Rotated;
}

float columnLabelHeight(ImFont* font, float pixels, const std::string& text, ColumnLabelMode mode) {
  switch (mode) {
    case ColumnLabelMode::Horizontal:
      return pixels;
    case ColumnLabelMode::Rotated:
      return textWidth(font, pixels, text);
    case ColumnLabelMode::Stacked:
      return pixels * static_cast<float>(decodeUtf8(text).size());
  }
  return pixels;
}

void addColumnLabel(ImDrawList& list, ImFont* font, float pixels, float x, float bottom, ImU32 color,
                    const std::string& text, ColumnLabelMode mode) {
  switch (mode) {
    case ColumnLabelMode::Horizontal:
      list.AddText(font, pixels, ImVec2(x - 0.5f * textWidth(font, pixels, text), bottom - pixels), color,
                   text.c_str());
      return;
    case ColumnLabelMode::Rotated:
      addVerticalText(list, font, pixels, ImVec2(x, bottom), color, text);
      return;
    case ColumnLabelMode::Stacked: {
      const auto cps = decodeUtf8(text);
      float y = bottom - pixels * static_cast<float>(cps.size());
      for (uint32_t cp : cps) {
        std::string glyph;
        io::appendUtf8(glyph, cp);
        list.AddText(font, pixels, ImVec2(x - 0.5f * textWidth(font, pixels, glyph), y), color, glyph.c_str());
        y += pixels;
      }
      return;
    }
  }
}

void addVerticalText(ImDrawList& list, ImFont* font, float size, ImVec2 anchor, ImU32 color, const std::string& text) {
  // Laid out horizontally from the anchor, then each new vertex turned about it. The clip rect is
  // opened wide first: ImGui culls glyphs against it before they are turned.
  list.PushClipRect(ImVec2(-1e5f, -1e5f), ImVec2(1e5f, 1e5f), false);
  const int first = list.VtxBuffer.Size;
  list.AddText(font, size, ImVec2(anchor.x, anchor.y - 0.5f * size), color, text.c_str());
  for (int i = first; i < list.VtxBuffer.Size; ++i) {
    ImVec2& p = list.VtxBuffer[i].pos;
    const float dx = p.x - anchor.x, dy = p.y - anchor.y;
    p = ImVec2(anchor.x + dy, anchor.y - dx);
  }
  // Each glyph is a quad of 4 vertices; turned, its fractional x advance became a fractional y, which
  // smears a thin stroke (the bar of '|', an 'l') over two pixel rows until it all but vanishes.
  // Whole pixels keep it sharp.
  for (int i = first; i + 3 < list.VtxBuffer.Size; i += 4) {
    float top = list.VtxBuffer[i].pos.y;
    for (int v = 1; v < 4; ++v) top = std::min(top, list.VtxBuffer[i + v].pos.y);
    const float shift = std::round(top) - top;
    for (int v = 0; v < 4; ++v) list.VtxBuffer[i + v].pos.y += shift;
  }
  list.PopClipRect();
}

}  // namespace vkattn::viewer
