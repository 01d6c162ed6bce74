#include "render/heatmap_view.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <utility>

#include "render/color_bar.hpp"
#include "render/fonts.hpp"
#include "vkattn/io/utf8.hpp"

namespace vkattn::viewer {
namespace {

constexpr std::size_t kMaxCached = 8;
constexpr std::size_t kLabelChars = 24;
// The thinnest a map is drawn across its short axis: this, or 1/8 of the space when more.
constexpr double kMinStripPixels = 48.0;

double stripPixels(double space) {
  return std::min(space, std::max(kMinStripPixels, 0.125 * space));
}

bool isIdentity(const std::vector<uint32_t>& edges) {
  return edges.back() - edges.front() == edges.size() - 1;
}

bool contains(const std::vector<int64_t>& list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The widest label in [begin, end) at `pixels`, sampled so that a map of thousands of tokens does
// not measure them all each frame. Stacked (CJK) column labels are never taller than this.
std::string label(const std::vector<std::string>& labels, int64_t i, bool unknown);

float widestLabel(ImFont* font, float pixels, const std::vector<std::string>& labels,
                  const std::vector<int64_t>& unknown, int64_t begin, int64_t end) {
  float widest = font->CalcTextSizeA(pixels, FLT_MAX, 0, std::to_string(end).c_str()).x;  // position labels
  const int64_t stride = (end - begin) / 512 + 1;
  for (int64_t i = begin; i < end && i < static_cast<int64_t>(labels.size()); i += stride) {
    const std::string text = label(labels, i, false);
    widest = std::max(widest, font->CalcTextSizeA(pixels, FLT_MAX, 0, text.c_str()).x);
  }
  for (int64_t i : unknown)
    if (i >= begin && i < end)
      widest = std::max(widest, font->CalcTextSizeA(pixels, FLT_MAX, 0, label(labels, i, true).c_str()).x);
  return widest;
}

int64_t labelStep(float cellPixels, float lineHeight) {
  return cellPixels >= lineHeight ? 1 : static_cast<int64_t>(std::ceil(lineHeight / std::max(cellPixels, 1e-6f)));
}

std::string label(const std::vector<std::string>& labels, int64_t i, bool unknown) {
  std::string text = i < static_cast<int64_t>(labels.size())
                         ? shortenLabel(io::visibleWhitespace(labels[static_cast<std::size_t>(i)]), kLabelChars)
                         : std::to_string(i);
  return unknown ? text + " (<unk>)" : text;
}

// The label of a span: its whole word's where that fits in `room` pixels at `pixels`, else its
// token's.
std::string label(const std::vector<std::string>& labels, LabelSpan span, bool unknown, ImFont* font, float pixels,
                  float room) {
  if (span.end - span.first <= 1 || span.end > static_cast<int64_t>(labels.size()))
    return label(labels, span.first, unknown);
  std::string word;
  for (int64_t i = span.first; i < span.end; ++i) word += labels[static_cast<std::size_t>(i)];
  std::string text = shortenLabel(io::visibleWhitespace(word), kLabelChars);
  if (unknown) text += " (<unk>)";
  return font->CalcTextSizeA(pixels, FLT_MAX, 0, text.c_str()).x <= room ? text : label(labels, span.first, unknown);
}

// Wholly hidden or masked bins; a bin that mixes them with weights shows its (reduced) value.
std::vector<BinKind> binKinds(const DisplayMap& map, const std::vector<uint32_t>& rowEdges,
                              const std::vector<uint32_t>& colEdges) {
  const std::size_t rows = rowEdges.size() - 1, cols = colEdges.size() - 1;
  std::vector<BinKind> kinds(rows * cols, BinKind::Value);
  std::vector<bool> hidden(cols, false);
  for (std::size_t x = 0; x < cols; ++x) {
    bool all = true;
    for (uint32_t c = colEdges[x]; c < colEdges[x + 1] && all; ++c) all = contains(map.hiddenColumns, c);
    hidden[x] = all && !map.hiddenColumns.empty();
  }
  for (std::size_t y = 0; y < rows; ++y)
    for (std::size_t x = 0; x < cols; ++x) {
      // Causal: column c is masked for row r when c > r; all of the bin when its first column
      // lies past its last row.
      if (map.causal && colEdges[x] > rowEdges[y + 1] - 1)
        kinds[y * cols + x] = BinKind::Masked;
      else if (hidden[x])
        kinds[y * cols + x] = BinKind::Hidden;
    }
  return kinds;
}

// Diagonal hatching over [a, b]: lines x + y = k every `spacing` pixels, clipped by hand (one
// clip rect per bin would split the draw list into thousands of commands).
void hatch(ImDrawList& list, ImVec2 a, ImVec2 b, ImU32 color, float spacing) {
  for (float k = a.x + a.y + spacing * 0.5f; k < b.x + b.y; k += spacing) {
    const float xs = std::max(a.x, k - b.y), xe = std::min(b.x, k - a.y);
    if (xe > xs) list.AddLine(ImVec2(xs, k - xs), ImVec2(xe, k - xe), color, 1.0f);
  }
}

// The bins as one image; pixels whose centre falls in a bin take its colour.
void drawBins(ImDrawList& list, BinImages& images, const DrawnGrid& grid, const ColorScale& scale, ImVec2 clipMin,
              ImVec2 clipMax) {
  list.PushClipRect(clipMin, clipMax, true);
  std::size_t special = 0;
  std::vector<uint32_t> colors(grid.kinds.size());
  for (std::size_t i = 0; i < colors.size(); ++i) {
    const BinKind kind = grid.kinds[i];
    special += kind != BinKind::Value;
    colors[i] = kind == BinKind::Masked   ? kMaskColor
                : kind == BinKind::Hidden ? kHiddenColor
                                          : packOpaque(scale.color(grid.values.values[i]));
  }
  images.add(list, grid.colPixels, grid.rowPixels, colors);
  // Hatching where it can be seen and stays cheap.
  if (special > 0 && special < 20000)
    for (int64_t y = 0; y < grid.values.rows; ++y)
      for (int64_t x = 0; x < grid.values.cols; ++x) {
        const BinKind kind = grid.kinds[static_cast<std::size_t>(y * grid.values.cols + x)];
        if (kind == BinKind::Value) continue;
        const ImVec2 a(grid.colPixels[static_cast<std::size_t>(x)], grid.rowPixels[static_cast<std::size_t>(y)]);
        const ImVec2 b(grid.colPixels[static_cast<std::size_t>(x + 1)],
                       grid.rowPixels[static_cast<std::size_t>(y + 1)]);
        if (b.x - a.x >= 6.0f && b.y - a.y >= 6.0f)
          hatch(list, a, b, kind == BinKind::Masked ? kMaskHatch : kHiddenHatch, 7.0f);
      }
  list.PopClipRect();
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

Region fillRegion(const Region& requested, int64_t rows, int64_t cols, double areaWidth, double areaHeight) {
  const Region r = clampRegion(requested, rows, cols);
  const double visibleRows = r.rowEnd - r.rowBegin, visibleCols = r.colEnd - r.colBegin;
  const double cell = std::min(areaWidth / visibleCols, areaHeight / visibleRows);
  const double wantRows = std::min(areaHeight / cell, static_cast<double>(rows));
  const double wantCols = std::min(areaWidth / cell, static_cast<double>(cols));
  const double rowMiddle = 0.5 * (r.rowBegin + r.rowEnd), colMiddle = 0.5 * (r.colBegin + r.colEnd);
  return clampRegion(
      {rowMiddle - 0.5 * wantRows, rowMiddle + 0.5 * wantRows, colMiddle - 0.5 * wantCols, colMiddle + 0.5 * wantCols},
      rows, cols);
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
  // Cells drawn one per bin are read through the same kernel (bins of one cell hold the cell).
  Matrix result;
  if (m_gpu) {
    try {
      if (m_bound != m_version) {
        m_gpu->setMap(m_map->values);
        m_bound = m_version;
      }
      result = m_gpu->run(rowEdges, colEdges, how);
    } catch (const std::exception& e) {
      // Keep drawing: the reference gives the same bins, only slower.
      m_error = std::string("GPU reduction failed, using the CPU: ") + e.what();
      m_gpu = nullptr;
    }
  }
  if (!m_gpu) result = downsampleReference(hostMap(), rowEdges, colEdges, how);
  return m_cache.emplace(std::move(key), std::move(result)).first->second;
}

const Matrix& HeatmapView::hostMap() {
  if (m_hostVersion != m_version) {
    m_host = download(m_map->values);
    m_hostVersion = m_version;
  }
  return m_host;
}

Matrix HeatmapView::row(int64_t r) {
  if (!m_map || r < 0 || r >= m_map->values.rows) return {};
  const std::vector<uint32_t> rowEdges = {static_cast<uint32_t>(r), static_cast<uint32_t>(r + 1)};
  return reduce(rowEdges, binEdges(0, m_map->values.cols, m_map->values.cols), Reduction::Max, m_rowReduced);
}

FigureLayout HeatmapView::draw(ImDrawList& list, ImFont* font, ImVec2 min, ImVec2 max, const Region& requested,
                               const ColorScale& scale, const FigureStyle& style) {
  FigureLayout out;
  if (!m_map || m_map->values.empty()) return out;
  const DeviceMap& map = m_map->values;
  ImFont* labelFont = style.labelFont ? style.labelFont : font;
  const float fs = font->FontSize;
  const float maxLabel = std::max(style.maxLabelPixels > 0.0f ? style.maxLabelPixels : fs, fs);
  const float minLabel = 0.8f * fs;

  float top = min.y;
  if (style.title && !m_map->title.empty()) {
    const float titlePixels = std::max(fs, 0.8f * maxLabel);
    list.AddText(labelFont, titlePixels, min, style.text, m_map->title.c_str());
    top += titlePixels + 8.0f;
  }
  const float colorBarSpace = style.colorBar ? colorBarWidth(labelFont, maxLabel, scale) : 0.0f;
  const float availWidth = max.x - min.x - colorBarSpace, availHeight = max.y - top;
  // Label space comes from the whole map at the largest label size, so that zooming (which
  // enlarges labels) never moves the heatmap's area.
  float rowLabelWidth = 0, colLabelHeight = 0;
  if (style.labels) {
    rowLabelWidth = std::min(widestLabel(labelFont, maxLabel, m_map->rowTokens, m_map->unknownRows, 0, map.rows) + 8.0f,
                             0.3f * availWidth);
    // Turned labels need their length, the gap to the map and a little room above.
    colLabelHeight =
        std::min(widestLabel(labelFont, maxLabel, m_map->colTokens, m_map->unknownCols, 0, map.cols) + 14.0f,
                 0.3f * availHeight);
  }
  const float width = availWidth - rowLabelWidth, height = availHeight - colLabelHeight;
  if (width < 8.0f || height < 8.0f) return out;

  // The area: all the space when stretching, else the whole map at square cells, unless square
  // cells would draw it thinner than a strip (a 1 x N or N x 1 map, or any long narrow one): then
  // it is that strip, its cells stretched across the short axis (labels thin out along the long
  // one as they do for any small cell).
  double areaW = width, areaH = height;
  bool stretch = style.stretch;
  if (!stretch) {
    const double cell = std::min(width / static_cast<double>(map.cols), height / static_cast<double>(map.rows));
    areaW = cell * static_cast<double>(map.cols);
    areaH = cell * static_cast<double>(map.rows);
    if (areaH < stripPixels(height)) {
      areaH = stripPixels(height);
      out.strip = stretch = true;
    } else if (areaW < stripPixels(width)) {
      areaW = stripPixels(width);
      out.strip = stretch = true;
    }
  }
  const Region r =
      stretch ? clampRegion(requested, map.rows, map.cols) : fillRegion(requested, map.rows, map.cols, areaW, areaH);
  out.region = r;
  out.stretch = stretch;
  const double visibleRows = r.rowEnd - r.rowBegin, visibleCols = r.colEnd - r.colBegin;
  float cellW = static_cast<float>(areaW / visibleCols), cellH = static_cast<float>(areaH / visibleRows);
  if (!stretch) cellW = cellH = std::min(cellW, cellH);
  const auto rb = static_cast<int64_t>(std::floor(r.rowBegin)), re = static_cast<int64_t>(std::ceil(r.rowEnd));
  const auto cb = static_cast<int64_t>(std::floor(r.colBegin)), ce = static_cast<int64_t>(std::ceil(r.colEnd));

  // Whole-pixel origin; the clip rect below rounds outwards, since the backend's scissor drops
  // fractional pixels and would cut off the last row and column.
  // Square cells leave space over along one axis: the figure stands in the middle of it.
  const float spareX = static_cast<float>(width - areaW);
  const ImVec2 h0(std::floor(min.x + rowLabelWidth + 0.5f * spareX), std::floor(top + colLabelHeight));
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
  grid.kinds = binKinds(*m_map, grid.rowEdges, grid.colEdges);
  for (uint32_t e : grid.rowEdges) grid.rowPixels.push_back(h0.y + static_cast<float>(e - r.rowBegin) * cellH);
  for (uint32_t e : grid.colEdges) grid.colPixels.push_back(h0.x + static_cast<float>(e - r.colBegin) * cellW);
  drawBins(list, m_images, grid, scale, h0, ImVec2(std::ceil(h1.x), std::ceil(h1.y)));
  list.AddRect(ImVec2(h0.x - 1, h0.y - 1), ImVec2(h1.x + 1, h1.y + 1), IM_COL32(128, 128, 128, 255));

  if (style.labels) {
    out.rowLabelPixels = std::clamp(0.75f * cellH, minLabel, maxLabel);
    out.colLabelPixels = std::clamp(0.75f * cellW, minLabel, maxLabel);
    const float rowPx = out.rowLabelPixels, colPx = out.colLabelPixels;
    const int64_t rowStep = labelStep(cellH, rowPx + 2.0f), colStep = labelStep(cellW, colPx + 2.0f);
    list.PushClipRect(ImVec2(min.x, top), ImVec2(h0.x, max.y), true);
    for (const LabelSpan span : labelSpans(m_map->rowTokens, rb, re, rowStep)) {
      const int64_t row = span.first;
      const float y = h0.y + static_cast<float>(row + 0.5 - r.rowBegin) * cellH;
      if (y < h0.y || y > h1.y) continue;
      const bool unknown = contains(m_map->unknownRows, row);
      const std::string text = label(m_map->rowTokens, span, unknown, labelFont, rowPx, h0.x - 5.0f - min.x);
      const float w = labelFont->CalcTextSizeA(rowPx, FLT_MAX, 0, text.c_str()).x;
      list.AddText(labelFont, rowPx, ImVec2(h0.x - 5.0f - w, y - 0.5f * rowPx), unknown ? style.warning : style.text,
                   text.c_str());
    }
    list.PopClipRect();
    list.PushClipRect(ImVec2(h0.x - 0.5f * cellW - colPx, top), ImVec2(h1.x + 0.5f * cellW + colPx, h0.y), true);
    // One direction for the row of labels: across when every one fits its cell, else turned; CJK
    // labels are set upright (stacked) either way.
    std::vector<std::pair<int64_t, std::string>> cols;  // column, label text
    bool allFit = true;
    for (const LabelSpan span : labelSpans(m_map->colTokens, cb, ce, colStep)) {
      const float x = h0.x + static_cast<float>(span.first + 0.5 - r.colBegin) * cellW;
      if (x < h0.x || x > h1.x) continue;
      const bool unknown = contains(m_map->unknownCols, span.first);
      cols.emplace_back(span.first, label(m_map->colTokens, span, unknown, labelFont, colPx, h0.y - 5.0f - top));
      allFit &= columnLabelMode(labelFont, colPx, cols.back().second, cellW * static_cast<float>(colStep)) ==
                ColumnLabelMode::Horizontal;
    }
    for (const auto& [col, text] : cols) {
      const float x = h0.x + static_cast<float>(col + 0.5 - r.colBegin) * cellW;
      const bool unknown = contains(m_map->unknownCols, col);
      const ColumnLabelMode mode = allFit                  ? ColumnLabelMode::Horizontal
                                   : isUprightScript(text) ? ColumnLabelMode::Stacked
                                                           : ColumnLabelMode::Rotated;
      addColumnLabel(list, labelFont, colPx, x, h0.y - 5.0f, unknown ? style.warning : style.text, text, mode);
      out.colLabels.push_back({col, mode});
    }
    list.PopClipRect();
  }
  if (style.colorBar) {
    const float x0 = h1.x + kColorBarGap;
    const float y1 = std::min(std::max(h1.y, h0.y + 120.0f), max.y - 0.5f * maxLabel);
    out.colorBarMin = ImVec2(x0, h0.y);
    out.colorBarMax = ImVec2(x0 + kColorBarWidth, y1);
    out.colorBarRight = drawColorBar(list, labelFont, maxLabel, out.colorBarMin, out.colorBarMax, scale, style.text);
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

}  // namespace vkattn::viewer
