#include "render/heatmap_view.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "render/fonts.hpp"

namespace vkattn::viewer {
namespace {

constexpr std::size_t kMaxCached = 8;
constexpr std::size_t kLabelChars = 24;

bool isIdentity(const std::vector<uint32_t>& edges) {
  return edges.back() - edges.front() == edges.size() - 1;
}

Matrix region(const Matrix& map, const std::vector<uint32_t>& rowEdges, const std::vector<uint32_t>& colEdges) {
  Matrix out(static_cast<int64_t>(rowEdges.size() - 1), static_cast<int64_t>(colEdges.size() - 1));
  for (int64_t r = 0; r < out.rows; ++r)
    for (int64_t c = 0; c < out.cols; ++c) out.at(r, c) = map.at(rowEdges.front() + r, colEdges.front() + c);
  return out;
}

ImU32 toImColor(Rgb c) {
  return IM_COL32(c.r, c.g, c.b, 255);
}

// Every `step`-th label from `begin` (step 1: all), measured; sampled so that a map of thousands
// of tokens does not measure them all each frame.
float widestLabel(ImFont* font, const std::vector<std::string>& labels, int64_t begin, int64_t end, int64_t step) {
  float widest = 0;
  const int64_t stride = std::max<int64_t>(step, (end - begin) / 512 + 1);
  for (int64_t i = begin - begin % stride; i < end; i += stride) {
    if (i < begin || i >= static_cast<int64_t>(labels.size())) continue;
    const std::string text = shortenLabel(labels[static_cast<std::size_t>(i)], kLabelChars);
    widest = std::max(widest, font->CalcTextSizeA(font->FontSize, FLT_MAX, 0, text.c_str()).x);
  }
  return widest;
}

int64_t labelStep(float cellPixels, float lineHeight) {
  return cellPixels >= lineHeight ? 1 : static_cast<int64_t>(std::ceil(lineHeight / std::max(cellPixels, 1e-6f)));
}

std::string label(const std::vector<std::string>& labels, int64_t i) {
  return i < static_cast<int64_t>(labels.size()) ? shortenLabel(labels[static_cast<std::size_t>(i)], kLabelChars)
                                                 : std::to_string(i);
}

}  // namespace

Region clampRegion(const Region& r, int64_t rows, int64_t cols) {
  if (r.whole()) return {0.0, static_cast<double>(rows), 0.0, static_cast<double>(cols)};
  auto axis = [](double begin, double end, double n) {
    const double length = std::clamp(end - begin, std::min(1.0, n), n);
    begin = std::clamp(begin, 0.0, n - length);
    return std::pair{begin, begin + length};
  };
  const auto [r0, r1] = axis(r.rowBegin, r.rowEnd, static_cast<double>(rows));
  const auto [c0, c1] = axis(r.colBegin, r.colEnd, static_cast<double>(cols));
  return {r0, r1, c0, c1};
}

std::string shortenLabel(const std::string& text, std::size_t maxChars) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) continue;  // continuation byte
    if (++count > maxChars) return text.substr(0, i) + "..";
  }
  return text;
}

void HeatmapView::setMap(const DisplayMap* map, uint64_t version) {
  if (map == m_map && version == m_version) return;
  m_map = map;
  m_version = version;
  m_cache.clear();
}

const Matrix& HeatmapView::reduce(const std::vector<uint32_t>& rowEdges, const std::vector<uint32_t>& colEdges,
                                  Reduction how, bool& reduced) {
  reduced = !(isIdentity(rowEdges) && isIdentity(colEdges));
  Key key{m_version, rowEdges, colEdges, static_cast<int>(how)};
  if (auto it = m_cache.find(key); it != m_cache.end()) return it->second;
  if (m_cache.size() >= kMaxCached) m_cache.clear();
  Matrix result;
  if (!reduced) {
    result = region(m_map->values, rowEdges, colEdges);
  } else if (m_gpu) {
    try {
      if (m_uploaded != m_version) {
        m_gpu->setMap(m_map->values);
        m_uploaded = m_version;
      }
      result = m_gpu->run(rowEdges, colEdges, how);
    } catch (const std::exception& e) {
      // Keep drawing: the reference gives the same bins, only slower.
      m_error = std::string("GPU reduction failed, using the CPU: ") + e.what();
      m_gpu = nullptr;
      result = downsampleReference(m_map->values, rowEdges, colEdges, how);
    }
  } else {
    result = downsampleReference(m_map->values, rowEdges, colEdges, how);
  }
  return m_cache.emplace(std::move(key), std::move(result)).first->second;
}

FigureLayout HeatmapView::draw(ImDrawList& list, ImFont* font, ImVec2 min, ImVec2 max, const Region& requested,
                               const ColorScale& scale, const FigureStyle& style) {
  FigureLayout out;
  if (!m_map || m_map->values.rows == 0 || m_map->values.cols == 0) return out;
  const Matrix& map = m_map->values;
  const float fs = font->FontSize, lineHeight = fs + 2.0f;
  const Region r = clampRegion(requested, map.rows, map.cols);
  out.region = r;
  const auto rb = static_cast<int64_t>(std::floor(r.rowBegin)), re = static_cast<int64_t>(std::ceil(r.rowEnd));
  const auto cb = static_cast<int64_t>(std::floor(r.colBegin)), ce = static_cast<int64_t>(std::ceil(r.colEnd));
  const double visibleRows = r.rowEnd - r.rowBegin, visibleCols = r.colEnd - r.colBegin;

  float top = min.y;
  if (style.title) {
    list.AddText(font, fs, min, style.text, m_map->title.c_str());
    top += lineHeight + 6.0f;
  }
  const float colorBarWidth =
      style.colorBar ? 14.0f + 10.0f + font->CalcTextSizeA(fs, FLT_MAX, 0, "-0.0000").x + 4.0f : 0.0f;
  const float availWidth = max.x - min.x - colorBarWidth, availHeight = max.y - top;
  float rowLabelWidth = 0, colLabelHeight = 0;
  if (style.labels) {
    const auto rowStep = labelStep(static_cast<float>(availHeight / visibleRows), lineHeight);
    const auto colStep = labelStep(static_cast<float>(availWidth / visibleCols), lineHeight);
    rowLabelWidth = std::min(widestLabel(font, m_map->rowTokens, rb, re, rowStep) + 8.0f, 0.3f * availWidth);
    colLabelHeight = std::min(widestLabel(font, m_map->colTokens, cb, ce, colStep) + 8.0f, 0.3f * availHeight);
  }
  float width = availWidth - rowLabelWidth, height = availHeight - colLabelHeight;
  if (width < 8.0f || height < 8.0f) return out;
  // Near-square cells read best; very unequal sides (2 x 2000) may stretch up to 4:1.
  float cellW = static_cast<float>(width / visibleCols), cellH = static_cast<float>(height / visibleRows);
  const float smaller = std::min(cellW, cellH);
  cellW = std::min({cellW, 4.0f * smaller, style.maxCellPixels});
  cellH = std::min({cellH, 4.0f * smaller, style.maxCellPixels});
  // Whole-pixel origin; the clip rect below rounds outwards, since the backend's scissor drops
  // fractional pixels and would cut off the last row and column.
  const ImVec2 h0(std::floor(min.x + rowLabelWidth), std::floor(top + colLabelHeight));
  const ImVec2 h1(h0.x + cellW * static_cast<float>(visibleCols), h0.y + cellH * static_cast<float>(visibleRows));
  out.heatmapMin = h0;
  out.heatmapMax = h1;
  out.cellWidth = cellW;
  out.cellHeight = cellH;

  // Bins: one per cell when cells are at least minBinPixels, else merged to that size.
  auto bins = [&](int64_t cells, float cellPixels) {
    if (cellPixels >= style.minBinPixels) return cells;
    return std::clamp<int64_t>(static_cast<int64_t>(static_cast<float>(cells) * cellPixels / style.minBinPixels), 1,
                               cells);
  };
  DrawnGrid& grid = out.grid;
  grid.rowEdges = binEdges(rb, re, bins(re - rb, cellH));
  grid.colEdges = binEdges(cb, ce, bins(ce - cb, cellW));
  const Reduction how = m_map->signedValues ? Reduction::MaxMagnitude : style.reduction;
  grid.values = reduce(grid.rowEdges, grid.colEdges, how, grid.reduced);
  for (uint32_t e : grid.rowEdges) grid.rowPixels.push_back(h0.y + static_cast<float>(e - r.rowBegin) * cellH);
  for (uint32_t e : grid.colEdges) grid.colPixels.push_back(h0.x + static_cast<float>(e - r.colBegin) * cellW);

  list.PushClipRect(h0, ImVec2(std::ceil(h1.x), std::ceil(h1.y)), true);
  const ImVec2 whiteUv = ImGui::GetFontTexUvWhitePixel();
  for (int64_t y = 0; y < grid.values.rows; ++y) {
    const int n = static_cast<int>(grid.values.cols);
    list.PrimReserve(6 * n, 4 * n);
    const float y0 = grid.rowPixels[static_cast<std::size_t>(y)], y1 = grid.rowPixels[static_cast<std::size_t>(y + 1)];
    for (int64_t x = 0; x < grid.values.cols; ++x) {
      const ImU32 color = toImColor(scale.color(grid.values.at(y, x)));
      list.PrimRectUV(ImVec2(grid.colPixels[static_cast<std::size_t>(x)], y0),
                      ImVec2(grid.colPixels[static_cast<std::size_t>(x + 1)], y1), whiteUv, whiteUv, color);
    }
  }
  list.PopClipRect();
  list.AddRect(ImVec2(h0.x - 1, h0.y - 1), ImVec2(h1.x + 1, h1.y + 1), IM_COL32(128, 128, 128, 255));

  if (style.labels) {
    const int64_t rowStep = labelStep(cellH, lineHeight), colStep = labelStep(cellW, lineHeight);
    for (int64_t row = rb - rb % rowStep; row < re; row += rowStep) {
      const float y = h0.y + static_cast<float>(row + 0.5 - r.rowBegin) * cellH;
      if (row < rb || y < h0.y || y > h1.y) continue;
      const std::string text = label(m_map->rowTokens, row);
      const float w = font->CalcTextSizeA(fs, FLT_MAX, 0, text.c_str()).x;
      list.AddText(font, fs, ImVec2(h0.x - 5.0f - w, y - 0.5f * fs), style.text, text.c_str());
    }
    for (int64_t col = cb - cb % colStep; col < ce; col += colStep) {
      const float x = h0.x + static_cast<float>(col + 0.5 - r.colBegin) * cellW;
      if (col < cb || x < h0.x || x > h1.x) continue;
      addVerticalText(list, font, fs, ImVec2(x, h0.y - 5.0f), style.text, label(m_map->colTokens, col));
    }
  }
  if (style.colorBar) {
    const float x0 = h1.x + 14.0f;
    const float y1 = std::max(h1.y, h0.y + 120.0f);
    drawColorBar(list, font, ImVec2(x0, h0.y), ImVec2(x0 + 14.0f, std::min(y1, max.y)), scale, style.text);
  }
  out.valid = true;
  return out;
}

std::optional<Cell> HeatmapView::cellAt(const FigureLayout& layout, ImVec2 p) const {
  if (!layout.valid || !m_map) return std::nullopt;
  if (p.x < layout.heatmapMin.x || p.y < layout.heatmapMin.y || p.x >= layout.heatmapMax.x ||
      p.y >= layout.heatmapMax.y)
    return std::nullopt;
  const auto row =
      static_cast<int64_t>(std::floor(layout.region.rowBegin + (p.y - layout.heatmapMin.y) / layout.cellHeight));
  const auto col =
      static_cast<int64_t>(std::floor(layout.region.colBegin + (p.x - layout.heatmapMin.x) / layout.cellWidth));
  if (row < 0 || col < 0 || row >= m_map->values.rows || col >= m_map->values.cols) return std::nullopt;
  return Cell{row, col};
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
  list.PopClipRect();
}

void drawColorBar(ImDrawList& list, ImFont* font, ImVec2 min, ImVec2 max, const ColorScale& scale, ImU32 text) {
  constexpr int kSegments = 64;
  const float height = max.y - min.y;
  for (int i = 0; i < kSegments; ++i) {
    // Segment i spans t in [i/N, (i+1)/N], drawn bottom (low) to top (high).
    const float t0 = static_cast<float>(i) / kSegments, t1 = static_cast<float>(i + 1) / kSegments;
    const ImU32 low = toImColor(sampleColormap(scale.colormap(), t0));
    const ImU32 high = toImColor(sampleColormap(scale.colormap(), t1));
    list.AddRectFilledMultiColor(ImVec2(min.x, max.y - t1 * height), ImVec2(max.x, max.y - t0 * height), high, high,
                                 low, low);
  }
  list.AddRect(min, max, IM_COL32(128, 128, 128, 255));
  const float fs = font->FontSize;
  for (int k = 0; k <= 4; ++k) {
    const float t = static_cast<float>(k) / 4.0f;
    const float y = max.y - t * height;
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", static_cast<double>(scale.valueAt(t)));
    // Ticks point into the bar: outside it they would read as minus signs before the labels.
    list.AddLine(ImVec2(max.x - 5.0f, y), ImVec2(max.x, y), IM_COL32(128, 128, 128, 255));
    list.AddText(font, fs, ImVec2(max.x + 5.0f, y - 0.5f * fs), text, buffer);
  }
}

}  // namespace vkattn::viewer
