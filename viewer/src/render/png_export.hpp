// Image files out of the viewer: PNG (stb_image_write) and the layout sidecar, a JSON record of
// where the heatmap lies in the image and which value each drawn bin shows, so that tests (and
// anyone scripting figures) can read the picture back.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "render/colormap.hpp"
#include "render/heatmap_view.hpp"
#include "sources/selection.hpp"

namespace vkattn::viewer {

// RGBA8 rows, top first. Throws InvalidArgument(argument) when the file cannot be written.
void writePng(const std::filesystem::path& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba,
              const std::string& argument);

struct LayoutRecord {
  uint32_t imageWidth = 0, imageHeight = 0;
  std::string source, view;
  const FigureLayout* figure = nullptr;
  const DisplayMap* map = nullptr;
  ColorScale scale;
  Reduction reduction = Reduction::Max;  // of bins that cover several cells
  bool stale = false;                    // the map is older than the input (its computation failed)
  std::string warning;                   // the source's warning (unknown words), if any
};

// Writes the sidecar; the grid's values are included up to 512 x 512 bins.
void writeLayoutJson(const std::filesystem::path& path, const LayoutRecord& record, const std::string& argument);

}  // namespace vkattn::viewer
