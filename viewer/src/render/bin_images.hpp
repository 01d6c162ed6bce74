// Heatmaps drawn as images instead of one ImGui quad per bin: a figure adds a bin image to its
// draw list (the bins' colours and, per pixel column and row, the bin under the pixel's centre),
// and the renderer draws it as one quad whose fragment shader looks the colour up. A 4096-token
// map at screen resolution is ~10^5 bins: as quads that is ~4·10^5 vertices to build and
// rasterise per frame, as an image one quad and a few hundred kilobytes of words.
//
// The images of a frame live here until clear() (at the start of the next frame); a renderer
// uploads words() before drawing a draw list that holds them and installs a painter for the time
// it draws, which the draw list's callbacks call.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <vector>

namespace vkattn::viewer {

class BinImages;

struct BinImage {
  const BinImages* owner = nullptr;
  ImVec2 origin{0, 0};  // top-left corner, ImGui coordinates (whole pixels)
  uint32_t width = 0, height = 0;
  uint32_t binCols = 0;
  // Offsets in words() of the column bins [width], row bins [height] and colours [rows][binCols].
  uint32_t colBinsOffset = 0, rowBinsOffset = 0, colorsOffset = 0;
};

// For each of `pixels` pixels from `origin`, the bin whose [edges[b], edges[b + 1]) holds the
// pixel's centre, or BIN_IMAGE_NO_BIN; `edges` increase (ImGui coordinates).
std::vector<uint32_t> pixelBins(std::span<const float> edges, float origin, uint32_t pixels);

class BinImages {
 public:
  using Painter = std::function<void(const BinImage&, const ImDrawCmd&)>;

  // Adds to `list`, under its current clip rect, the bins of a grid whose columns and rows have
  // the increasing pixel edges `colEdges` and `rowEdges` (ImGui coordinates): bin (y, x) is
  // coloured colors[y * (colEdges.size() - 1) + x] (IM_COL32 values) wherever it holds a pixel's
  // centre, as ImGui would fill one rectangle per bin.
  void add(ImDrawList& list, std::span<const float> colEdges, std::span<const float> rowEdges,
           std::span<const uint32_t> colors);
  void clear() noexcept;
  std::span<const uint32_t> words() const noexcept { return m_words; }
  std::size_t size() const noexcept { return m_images.size(); }

  // While a renderer draws; nullptr afterwards.
  void setPainter(Painter painter) { m_painter = std::move(painter); }

 private:
  static void paint(const ImDrawList* list, const ImDrawCmd* cmd);

  std::vector<uint32_t> m_words;
  std::deque<BinImage> m_images;  // stable addresses: the draw commands point at them
  Painter m_painter;
};

}  // namespace vkattn::viewer
