#include "render/png_export.hpp"

#include <stb_image_write.h>

#include <fstream>
#include <sstream>

#include "render/color_bar.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/io/json_text.hpp"

namespace vkattn::viewer {
namespace {

template <typename T>
std::string list(const std::vector<T>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += jsonNumber(static_cast<double>(values[i]));
  }
  return out + "]";
}

std::string strings(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += jsonQuoted(values[i]);
  }
  return out + "]";
}

}  // namespace

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
  const FigureLayout& f = *record.figure;
  const DrawnGrid& g = f.grid;
  std::ostringstream out;
  out << "{\n  \"image\": {\"width\": " << record.imageWidth << ", \"height\": " << record.imageHeight << "},\n";
  out << "  \"source\": " << jsonQuoted(record.source) << ",\n  \"view\": " << jsonQuoted(record.view) << ",\n";
  out << "  \"heatmap\": {\"x0\": " << jsonNumber(f.heatmapMin.x) << ", \"y0\": " << jsonNumber(f.heatmapMin.y)
      << ", \"x1\": " << jsonNumber(f.heatmapMax.x) << ", \"y1\": " << jsonNumber(f.heatmapMax.y) << "},\n";
  if (record.map) {
    out << "  \"map\": {\"rows\": " << record.map->values.rows << ", \"cols\": " << record.map->values.cols
        << ", \"signed\": " << (record.map->signedValues ? "true" : "false")
        << ", \"title\": " << jsonQuoted(record.map->title) << "},\n";
    out << "  \"rowTokens\": " << strings(record.map->rowTokens) << ",\n";
    out << "  \"colTokens\": " << strings(record.map->colTokens) << ",\n";
    out << "  \"hiddenColumns\": " << list(record.map->hiddenColumns)
        << ", \"causalMask\": " << (record.map->causal ? "true" : "false")
        << ", \"probability\": " << (record.map->probability ? "true" : "false")
        << ", \"renormalised\": " << (record.map->renormalised ? "true" : "false") << ",\n";
    out << "  \"normalisation\": " << jsonQuoted(record.map->normalisation) << ",\n";
    out << "  \"unknownRows\": " << list(record.map->unknownRows)
        << ", \"unknownCols\": " << list(record.map->unknownCols) << ",\n";
  }
  out << "  \"stale\": " << (record.stale ? "true" : "false") << ", \"warning\": " << jsonQuoted(record.warning)
      << ",\n";
  out << "  \"cells\": {\"width\": " << jsonNumber(f.cellWidth) << ", \"height\": " << jsonNumber(f.cellHeight)
      << ", \"stretch\": " << (f.stretch ? "true" : "false") << "},\n";
  out << "  \"labels\": {\"rowPixels\": " << jsonNumber(f.rowLabelPixels)
      << ", \"colPixels\": " << jsonNumber(f.colLabelPixels) << ", \"columns\": [";
  for (std::size_t i = 0; i < f.colLabels.size() && i < 512; ++i)
    out << (i ? ", " : "") << "{\"col\": " << f.colLabels[i].col << ", \"mode\": \"" << toString(f.colLabels[i].mode)
        << "\"}";
  out << "]},\n";
  out << "  \"colorBar\": {\"x0\": " << jsonNumber(f.colorBarMin.x) << ", \"y0\": " << jsonNumber(f.colorBarMin.y)
      << ", \"x1\": " << jsonNumber(f.colorBarMax.x) << ", \"y1\": " << jsonNumber(f.colorBarMax.y)
      << ", \"labelRight\": " << jsonNumber(f.colorBarRight) << ", \"ticks\": [";
  const auto ticks = colorBarTicks(record.scale);
  for (std::size_t i = 0; i < ticks.size(); ++i) out << (i ? ", " : "") << jsonNumber(ticks[i].value);
  out << "]},\n";
  out << "  \"region\": {\"rowBegin\": " << jsonNumber(f.region.rowBegin)
      << ", \"rowEnd\": " << jsonNumber(f.region.rowEnd) << ", \"colBegin\": " << jsonNumber(f.region.colBegin)
      << ", \"colEnd\": " << jsonNumber(f.region.colEnd) << "},\n";
  out << "  \"colormap\": " << jsonQuoted(toString(record.scale.colormap()))
      << ", \"scale\": " << jsonQuoted(toString(record.scale.scale())) << ", \"range\": ["
      << jsonNumber(record.scale.min()) << ", " << jsonNumber(record.scale.max()) << "],\n";
  out << "  \"grid\": {\"rows\": " << g.values.rows << ", \"cols\": " << g.values.cols
      << ", \"reduced\": " << (g.reduced ? "true" : "false") << ",\n    \"rowEdges\": " << list(g.rowEdges)
      << ",\n    \"colEdges\": " << list(g.colEdges) << ",\n    \"rowPixels\": " << list(g.rowPixels)
      << ",\n    \"colPixels\": " << list(g.colPixels);
  if (g.values.rows <= 512 && g.values.cols <= 512) {
    out << ",\n    \"values\": [";
    for (int64_t r = 0; r < g.values.rows; ++r) {
      std::vector<float> row(g.values.values.begin() + r * g.values.cols,
                             g.values.values.begin() + (r + 1) * g.values.cols);
      out << (r ? ",\n      " : "\n      ") << list(row);
    }
    out << "],\n    \"kinds\": [";
    for (int64_t r = 0; r < g.values.rows; ++r) {
      out << (r ? ",\n      [" : "\n      [");
      for (int64_t c = 0; c < g.values.cols; ++c)
        out << (c ? "," : "") << static_cast<int>(g.kinds[static_cast<std::size_t>(r * g.values.cols + c)]);
      out << "]";
    }
    out << "]";
  }
  out << "}\n}\n";
  std::ofstream file(path);
  if (!file) throw InvalidArgument(argument, "cannot write " + path.string());
  file << out.str();
  if (!file) throw InvalidArgument(argument, "cannot write " + path.string());
}

}  // namespace vkattn::viewer
