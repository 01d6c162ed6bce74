#include "render/fonts.hpp"

#include <filesystem>
#include <iostream>

namespace vkattn::viewer {

std::vector<uint32_t> decodeUtf8(const std::string& text) {
  std::vector<uint32_t> out;
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    const int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : -1;
    if (extra < 0 || i + static_cast<std::size_t>(extra) >= n + (extra == 0 ? 1 : 0)) {
      ++i;  // a stray continuation byte or a truncated sequence
      continue;
    }
    uint32_t cp = extra == 0 ? c : extra == 1 ? (c & 0x1f) : extra == 2 ? (c & 0x0f) : (c & 0x07);
    bool ok = true;
    for (int k = 1; k <= extra; ++k) {
      if ((s[i + k] & 0xc0) != 0x80) ok = false;
      cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    if (ok) out.push_back(cp);
    i += ok ? static_cast<std::size_t>(extra) + 1 : 1;
  }
  return out;
}

std::set<uint32_t> missingGlyphs(const std::vector<std::string>& texts, const std::set<uint32_t>& baked) {
  std::set<uint32_t> missing;
  for (const std::string& text : texts)
    for (uint32_t cp : decodeUtf8(text))
      if (cp > 0xff && cp <= 0xffff && !baked.contains(cp)) missing.insert(cp);
  return missing;
}

bool FontAtlas::require(const std::vector<std::string>& texts) {
  const std::set<uint32_t> missing = missingGlyphs(texts, m_codepoints);
  m_codepoints.insert(missing.begin(), missing.end());
  return !missing.empty() || m_font == nullptr;
}

void FontAtlas::build() {
  ImFontAtlas& atlas = *ImGui::GetIO().Fonts;
  atlas.Clear();
  ImFontGlyphRangesBuilder builder;
  builder.AddRanges(atlas.GetGlyphRangesDefault());  // ASCII and Latin-1
  for (uint32_t cp : m_codepoints) builder.AddChar(static_cast<ImWchar>(cp));
  m_ranges.clear();
  builder.BuildRanges(&m_ranges);

  m_font = nullptr;
  m_largeFont = nullptr;
  std::error_code ec;
  if (std::filesystem::exists(m_file, ec)) {
    ImFontConfig config;
    config.OversampleH = 2;  // crisp at one size; the atlas stays small
    config.OversampleV = 1;
    m_font = atlas.AddFontFromFileTTF(m_file.c_str(), m_pixelSize, &config, m_ranges.Data);
    ImFontConfig large;
    large.OversampleH = 1;  // large glyphs need no subpixel positions
    large.OversampleV = 1;
    if (m_font) m_largeFont = atlas.AddFontFromFileTTF(m_file.c_str(), kLargePixels, &large, m_ranges.Data);
  }
  m_fileFont = m_font != nullptr;
  if (!m_font) {
    if (!m_warned)
      std::cerr << "vkattn-viewer: font " << m_file
                << " not found (Debian: fonts-wqy-microhei); tokens outside ASCII show as '?'\n";
    m_warned = true;
    ImFontConfig config;
    config.SizePixels = m_pixelSize;
    m_font = atlas.AddFontDefault(&config);
  }
  atlas.Build();
}

}  // namespace vkattn::viewer
