// The font atlas: WenQuanYi Micro Hei (CJK, Latin, Cyrillic) baked with only the glyphs in use,
// ASCII and Latin-1 always plus whatever the tokens and the text box need. Dear ImGui 1.86 bakes
// one texture, so new glyphs mean a rebuilt atlas that the caller re-uploads (ImGuiVulkan).
#pragma once

#include <imgui.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace vkattn::viewer {

inline constexpr const char* kDefaultFontFile = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";

// Code points of UTF-8 text; malformed bytes are skipped.
std::vector<uint32_t> decodeUtf8(const std::string& text);

// Code points of `texts` that the atlas lacks: outside ASCII and Latin-1, within the Basic
// Multilingual Plane (what 16-bit ImWchar holds), and not in `baked`.
std::set<uint32_t> missingGlyphs(const std::vector<std::string>& texts, const std::set<uint32_t>& baked);

class FontAtlas {
 public:
  explicit FontAtlas(float pixelSize, std::string file = kDefaultFontFile)
      : m_pixelSize(pixelSize), m_file(std::move(file)) {}

  // Notes the glyphs of `texts`; true when some are new, i.e. build() and a re-upload are due.
  bool require(const std::vector<std::string>& texts);
  // Rebuilds ImGui's atlas (the current context's io.Fonts) with every glyph required so far.
  // Without the font file it falls back to ImGui's built-in ASCII font and says so once.
  void build();

  ImFont* font() const noexcept { return m_font; }
  // The same face baked at kLargePixels for big labels and exported figures (scaled down it stays
  // sharp; the UI size scaled up would blur). nullptr without the font file.
  ImFont* largeFont() const noexcept { return m_largeFont; }
  static constexpr float kLargePixels = 40.0f;
  float pixelSize() const noexcept { return m_pixelSize; }
  bool fileFont() const noexcept { return m_fileFont; }
  std::size_t glyphCount() const noexcept { return m_codepoints.size(); }

 private:
  float m_pixelSize;
  std::string m_file;
  std::set<uint32_t> m_codepoints;  // beyond ASCII and Latin-1
  ImVector<ImWchar> m_ranges;       // must outlive the atlas build
  ImFont* m_font = nullptr;
  ImFont* m_largeFont = nullptr;
  bool m_fileFont = false;
  bool m_warned = false;
};

}  // namespace vkattn::viewer
