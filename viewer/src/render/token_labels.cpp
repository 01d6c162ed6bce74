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

// Letters and digits of alphabetic scripts, the characters a word piece continues with.
bool isWordCodePoint(uint32_t cp) {
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z');
  const bool punctuationOrSymbol = (cp >= 0x2000 && cp <= 0x2bff) || (cp >= 0x3000 && cp <= 0x303f) ||
                                   (cp >= 0xfe30 && cp <= 0xfe4f) || cp >= 0x1f000 || cp < 0xc0;
  return !punctuationOrSymbol && !isUprightCodePoint(cp);
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

namespace {

// Whether the tokens are pieces of one text (some begin with whitespace, as a language model's do),
// rather than whole words or names each (a word-level vocabulary, "t0", "t1", ...).
bool piecesOfText(const std::vector<std::string>& tokens) {
  return std::any_of(tokens.begin(), tokens.end(), [](const std::string& t) {
    return !t.empty() && (t[0] == ' ' || t[0] == '\n' || t[0] == '\t' || t[0] == '\r');
  });
}

bool startsWordOf(const std::vector<std::string>& tokens, int64_t i, bool pieces) {
  if (!pieces || i <= 0 || i >= static_cast<int64_t>(tokens.size())) return true;
  const auto here = decodeUtf8(tokens[static_cast<std::size_t>(i)]);
  const auto before = decodeUtf8(tokens[static_cast<std::size_t>(i - 1)]);
  return here.empty() || before.empty() || !isWordCodePoint(here.front()) || !isWordCodePoint(before.back());
}

}  // namespace

bool startsWord(const std::vector<std::string>& tokens, int64_t i) {
  return startsWordOf(tokens, i, piecesOfText(tokens));
}

std::vector<LabelSpan> labelSpans(const std::vector<std::string>& tokens, int64_t begin, int64_t end, int64_t step) {
  std::vector<LabelSpan> spans;
  if (begin >= end) return spans;
  if (step <= 1) {
    for (int64_t i = begin; i < end; ++i) spans.push_back({i, i + 1});
    return spans;
  }
  const bool pieces = piecesOfText(tokens);  // once per call, not per token
  const auto starts = [&](int64_t i) { return startsWordOf(tokens, i, pieces); };
  const int64_t anchor = begin - begin % (16 * step);
  int64_t last = anchor - 2 * step;  // the anchor itself may take a label
  for (int64_t i = anchor; i < end; ++i) {
    if (i - last < step) continue;
    const bool word = starts(i);
    if (!word && i - last < 2 * step) continue;
    last = i;
    if (i < begin) continue;
    int64_t wordEnd = i + 1;
    if (word)
      while (wordEnd < end && wordEnd - i < 2 * step && !starts(wordEnd)) ++wordEnd;
    spans.push_back({i, wordEnd});
  }
  return spans;
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
