// Draws one attention map as a figure into an ImDrawList: the cells (read from the device map,
// reduced on the GPU to about screen resolution when the visible region has more cells than
// pixels), row and column token
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

#include "render/bin_images.hpp"
#include "render/colormap.hpp"
#include "render/downsample.hpp"
#include "render/region.hpp"
#include "render/token_labels.hpp"
#include "sources/selection.hpp"

namespace vkattn::viewer {

struct FigureStyle {
  bool title = true;
  bool labels = true;
  bool colorBar = true;
  // Cells are square and the region shown is widened along one axis to fill the area the whole
  // map takes; with `stretch` the region fills all the space and cells take its aspect. A map
  // that square cells would draw thinner than max(48 px, 1/8 of the space) across is drawn as a
  // strip that thick, its cells stretched, either way.
  bool stretch = false;
  float minBinPixels = 2.0f;  // bins narrower than this are merged (reduced)
  // Labels follow the cell size between 0.8 x the font size and this (0: the font size); figures
  // for export pass a size that grows with the image.
  float maxLabelPixels = 0.0f;
  ImFont* labelFont = nullptr;           // a font baked large for big labels; nullptr: the figure font
  Reduction reduction = Reduction::Max;  // for unsigned maps; signed ones keep the largest magnitude
  ImU32 text = IM_COL32(225, 225, 225, 255);
  ImU32 warning = IM_COL32(240, 140, 40, 255);  // tokens the model read as <unk>
};

// Cells that carry no weight to read, drawn apart from a zero: hidden columns (grey, light
// hatching) and the causal mask (slate, dark hatching).
inline constexpr ImU32 kHiddenColor = IM_COL32(150, 150, 150, 255);
inline constexpr ImU32 kHiddenHatch = IM_COL32(205, 205, 205, 255);
inline constexpr ImU32 kMaskColor = IM_COL32(52, 52, 62, 255);
inline constexpr ImU32 kMaskHatch = IM_COL32(112, 112, 128, 255);
enum class BinKind : uint8_t { Value = 0, Hidden = 1, Masked = 2 };

// The bins drawn: map-cell edges, their screen edges and the value each bin was coloured by.
struct DrawnGrid {
  std::vector<uint32_t> rowEdges, colEdges;
  std::vector<float> rowPixels, colPixels;
  Matrix values;
  std::vector<BinKind> kinds;  // per bin, row-major: Value, or a bin wholly hidden or masked
  bool reduced = false;        // values came from the downsampler (GPU, or its CPU reference)
};

struct ColumnLabel {
  int64_t col = 0;
  ColumnLabelMode mode = ColumnLabelMode::Rotated;
};

struct FigureLayout {
  bool valid = false;
  ImVec2 heatmapMin{0, 0}, heatmapMax{0, 0};
  Region region;  // the fractional region shown, clamped to the map
  float cellWidth = 0, cellHeight = 0;
  bool stretch = false;  // cells take the area's aspect (FigureStyle::stretch, or a strip)
  bool strip = false;    // square cells would have drawn the map too thin: it was widened to a strip
  float rowLabelPixels = 0, colLabelPixels = 0;
  std::vector<ColumnLabel> colLabels;  // the column labels drawn and how
  ImVec2 colorBarMin{0, 0}, colorBarMax{0, 0};
  float colorBarRight = 0;  // the rightmost pixel of its labels
  DrawnGrid grid;
};

struct Cell {
  int64_t row = 0, col = 0;
};

// The region clamped into the map, at least one cell each way; a whole() region is the map.
Region clampRegion(const Region& region, int64_t rows, int64_t cols);

// The region widened about its centre along one axis so that cells of an area `areaWidth` x
// `areaHeight` are square and the region fills it (clamped into the map).
Region fillRegion(const Region& region, int64_t rows, int64_t cols, double areaWidth, double areaHeight);

class HeatmapView {
 public:
  // `gpu` reduces large maps; nullptr uses the CPU reference. The cells are drawn as bin images
  // added to `images`.
  HeatmapView(GpuDownsampler* gpu, BinImages& images) : m_gpu(gpu), m_images(images) {}

  // The map to draw from now on; `version` must change whenever its values do.
  void setMap(const DisplayMap* map, uint64_t version);
  const DisplayMap* map() const noexcept { return m_map; }

  FigureLayout draw(ImDrawList& list, ImFont* font, ImVec2 min, ImVec2 max, const Region& region,
                    const ColorScale& scale, const FigureStyle& style);

  // The map cell under a screen point of `layout`, if the point is on the heatmap.
  std::optional<Cell> cellAt(const FigureLayout& layout, ImVec2 point) const;

  // Set when the GPU reduction failed and the CPU reference stood in.
  const std::string& lastError() const noexcept { return m_error; }

  // Row r of the map's values (the hover's statistics), read from the device; empty out of range.
  Matrix row(int64_t r);

 private:
  const Matrix& reduce(const std::vector<uint32_t>& rowEdges, const std::vector<uint32_t>& colEdges, Reduction how,
                       bool& reduced);
  // The whole map on the host, only for the CPU stand-in.
  const Matrix& hostMap();

  GpuDownsampler* m_gpu;
  BinImages& m_images;
  const DisplayMap* m_map = nullptr;
  uint64_t m_version = 0;
  uint64_t m_bound = ~0ull;  // the version the downsampler holds
  uint64_t m_hostVersion = ~0ull;
  Matrix m_host;
  bool m_rowReduced = false;
  using Key = std::tuple<uint64_t, std::vector<uint32_t>, std::vector<uint32_t>, int>;
  std::map<Key, Matrix> m_cache;  // a few recent reductions; pan and zoom revisit them
  std::string m_error;
};

}  // namespace vkattn::viewer
