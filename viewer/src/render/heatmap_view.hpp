// Draws one attention map as a figure into an ImDrawList: the cells (reduced on the GPU to about
// screen resolution when the visible region has more cells than pixels), row and column token
// labels, a title and a colour bar. The same code draws the window, the thumbnails and the PNG
// export, so what is exported is what was seen.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "render/colormap.hpp"
#include "render/downsample.hpp"
#include "render/region.hpp"
#include "sources/selection.hpp"

namespace vkattn::viewer {

struct FigureStyle {
  bool title = true;
  bool labels = true;
  bool colorBar = true;
  float minBinPixels = 2.0f;  // bins narrower than this are merged (reduced)
  float maxCellPixels = 56.0f;
  Reduction reduction = Reduction::Max;  // for unsigned maps; signed ones keep the largest magnitude
  ImU32 text = IM_COL32(225, 225, 225, 255);
};

// The bins drawn: map-cell edges, their screen edges and the value each bin was coloured by.
struct DrawnGrid {
  std::vector<uint32_t> rowEdges, colEdges;
  std::vector<float> rowPixels, colPixels;
  Matrix values;
  bool reduced = false;  // values came from the downsampler (GPU, or its CPU reference)
};

struct FigureLayout {
  bool valid = false;
  ImVec2 heatmapMin{0, 0}, heatmapMax{0, 0};
  Region region;  // the fractional region shown, clamped to the map
  float cellWidth = 0, cellHeight = 0;
  DrawnGrid grid;
};

struct Cell {
  int64_t row = 0, col = 0;
};

// The region clamped into the map, at least one cell each way; a whole() region is the map.
Region clampRegion(const Region& region, int64_t rows, int64_t cols);

// UTF-8 text cut to at most `maxChars` code points, ".." marking the cut.
std::string shortenLabel(const std::string& text, std::size_t maxChars);

class HeatmapView {
 public:
  // `gpu` reduces large maps; nullptr uses the CPU reference.
  explicit HeatmapView(GpuDownsampler* gpu) : m_gpu(gpu) {}

  // The map to draw from now on; `version` must change whenever its values do.
  void setMap(const DisplayMap* map, uint64_t version);
  const DisplayMap* map() const noexcept { return m_map; }

  FigureLayout draw(ImDrawList& list, ImFont* font, ImVec2 min, ImVec2 max, const Region& region,
                    const ColorScale& scale, const FigureStyle& style);

  // The map cell under a screen point of `layout`, if the point is on the heatmap.
  std::optional<Cell> cellAt(const FigureLayout& layout, ImVec2 point) const;

  // Set when the GPU reduction failed and the CPU reference stood in.
  const std::string& lastError() const noexcept { return m_error; }

 private:
  const Matrix& reduce(const std::vector<uint32_t>& rowEdges, const std::vector<uint32_t>& colEdges, Reduction how,
                       bool& reduced);

  GpuDownsampler* m_gpu;
  const DisplayMap* m_map = nullptr;
  uint64_t m_version = 0;
  uint64_t m_uploaded = ~0ull;
  using Key = std::tuple<uint64_t, std::vector<uint32_t>, std::vector<uint32_t>, int>;
  std::map<Key, Matrix> m_cache;  // a few recent reductions; pan and zoom revisit them
  Matrix m_identity;
  std::string m_error;
};

// Text rotated a quarter turn counter-clockwise (reads bottom to top), its baseline end at
// `anchor`: column labels standing above the map.
void addVerticalText(ImDrawList& list, ImFont* font, float size, ImVec2 anchor, ImU32 color, const std::string& text);

// The colour bar of `scale` in [min, max] with five labelled ticks.
void drawColorBar(ImDrawList& list, ImFont* font, ImVec2 min, ImVec2 max, const ColorScale& scale, ImU32 text);

}  // namespace vkattn::viewer
