#include "render/png_export.hpp"

#include <stb_image_write.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "render/color_bar.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::viewer {

void writePng(const std::filesystem::path& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba,
              const std::string& argument) {
  if (rgba.size() != static_cast<std::size_t>(width) * height * 4)
    throw InvalidArgument(argument,
                          "image data does not match " + std::to_string(width) + "x" + std::to_string(height));
  if (!stbi_write_png(path.string().c_str(), static_cast<int>(width), static_cast<int>(height), 4, rgba.data(),
                      static_cast<int>(width * 4)))
    throw InvalidArgument(argument, "cannot write " + path.string());
}

void writeLayoutJson(const std::filesystem::path& path, const LayoutRecord& record, const std::string& argument) {
  using Json = nlohmann::ordered_json;
  const FigureLayout& f = *record.figure;
  const DrawnGrid& g = f.grid;
  Json out;
  out["image"] = {{"width", record.imageWidth}, {"height", record.imageHeight}};
  out["source"] = record.source;
  out["view"] = record.view;
  out["heatmap"] = {{"x0", f.heatmapMin.x}, {"y0", f.heatmapMin.y}, {"x1", f.heatmapMax.x}, {"y1", f.heatmapMax.y}};
  if (record.map) {
    const auto& m = *record.map;
    out["map"] = {{"rows", m.values.rows}, {"cols", m.values.cols}, {"signed", m.signedValues}, {"title", m.title}};
    out["rowTokens"] = m.rowTokens;
    out["colTokens"] = m.colTokens;
    out["hiddenColumns"] = m.hiddenColumns;
    out["causalMask"] = m.causal;
    out["probability"] = m.probability;
    out["renormalised"] = m.renormalised;
    out["normalisation"] = m.normalisation;
    out["unknownRows"] = m.unknownRows;
    out["unknownCols"] = m.unknownCols;
  }
  out["stale"] = record.stale;
  out["warning"] = record.warning;
  out["cells"] = {{"width", f.cellWidth}, {"height", f.cellHeight}, {"stretch", f.stretch}, {"strip", f.strip}};
  Json columns = Json::array();
  for (std::size_t i = 0; i < f.colLabels.size() && i < 512; ++i)
    columns.push_back({{"col", f.colLabels[i].col}, {"mode", toString(f.colLabels[i].mode)}});
  out["labels"] = {{"rowPixels", f.rowLabelPixels}, {"colPixels", f.colLabelPixels}, {"columns", columns}};
  Json ticks = Json::array();
  for (const auto& tick : colorBarTicks(record.scale)) ticks.push_back(tick.value);
  out["colorBar"] = {{"x0", f.colorBarMin.x}, {"y0", f.colorBarMin.y},         {"x1", f.colorBarMax.x},
                     {"y1", f.colorBarMax.y}, {"labelRight", f.colorBarRight}, {"ticks", ticks}};
  out["region"] = {{"rowBegin", f.region.rowBegin},
                   {"rowEnd", f.region.rowEnd},
                   {"colBegin", f.region.colBegin},
                   {"colEnd", f.region.colEnd}};
  out["colormap"] = toString(record.scale.colormap());
  out["scale"] = toString(record.scale.scale());
  out["reduce"] = toString(record.reduction);
  out["range"] = {record.scale.min(), record.scale.max()};
  Json grid = {{"rows", g.values.rows},   {"cols", g.values.cols},  {"reduced", g.reduced},
               {"rowEdges", g.rowEdges},  {"colEdges", g.colEdges}, {"rowPixels", g.rowPixels},
               {"colPixels", g.colPixels}};
  if (g.values.rows <= 512 && g.values.cols <= 512) {  // small maps carry their values for the tests
    Json values = Json::array(), kinds = Json::array();
    for (int64_t r = 0; r < g.values.rows; ++r) {
      const auto begin = static_cast<std::size_t>(r * g.values.cols),
                 end = begin + static_cast<std::size_t>(g.values.cols);
      values.push_back(std::vector<float>(g.values.values.begin() + static_cast<std::ptrdiff_t>(begin),
                                          g.values.values.begin() + static_cast<std::ptrdiff_t>(end)));
      Json kindRow = Json::array();
      for (std::size_t i = begin; i < end; ++i) kindRow.push_back(static_cast<int>(g.kinds[i]));
      kinds.push_back(std::move(kindRow));
    }
    grid["values"] = std::move(values);
    grid["kinds"] = std::move(kinds);
  }
  out["grid"] = std::move(grid);
  std::ofstream file(path);
  if (!file) throw InvalidArgument(argument, "cannot write " + path.string());
  file << out.dump(1) << "\n";
  if (!file) throw InvalidArgument(argument, "cannot write " + path.string());
}

}  // namespace vkattn::viewer
