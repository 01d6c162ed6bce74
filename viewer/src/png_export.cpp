#include "png_export.hpp"

#include <stb_image_write.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "vkattn/error.hpp"

namespace vkattn::viewer {
namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", c);
      out += escape;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
}

template <typename T>
std::string list(const std::vector<T>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += number(static_cast<double>(values[i]));
  }
  return out + "]";
}

std::string strings(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += quoted(values[i]);
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
  out << "  \"source\": " << quoted(record.source) << ",\n  \"view\": " << quoted(record.view) << ",\n";
  out << "  \"heatmap\": {\"x0\": " << number(f.heatmapMin.x) << ", \"y0\": " << number(f.heatmapMin.y)
      << ", \"x1\": " << number(f.heatmapMax.x) << ", \"y1\": " << number(f.heatmapMax.y) << "},\n";
  if (record.map) {
    out << "  \"map\": {\"rows\": " << record.map->values.rows << ", \"cols\": " << record.map->values.cols
        << ", \"signed\": " << (record.map->signedValues ? "true" : "false")
        << ", \"title\": " << quoted(record.map->title) << "},\n";
    out << "  \"rowTokens\": " << strings(record.map->rowTokens) << ",\n";
    out << "  \"colTokens\": " << strings(record.map->colTokens) << ",\n";
  }
  out << "  \"region\": {\"rowBegin\": " << number(f.region.rowBegin) << ", \"rowEnd\": " << number(f.region.rowEnd)
      << ", \"colBegin\": " << number(f.region.colBegin) << ", \"colEnd\": " << number(f.region.colEnd) << "},\n";
  out << "  \"colormap\": " << quoted(toString(record.scale.colormap()))
      << ", \"scale\": " << quoted(toString(record.scale.scale())) << ", \"range\": [" << number(record.scale.min())
      << ", " << number(record.scale.max()) << "],\n";
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
    out << "]";
  }
  out << "}\n}\n";
  std::ofstream file(path);
  if (!file) throw InvalidArgument(argument, "cannot write " + path.string());
  file << out.str();
  if (!file) throw InvalidArgument(argument, "cannot write " + path.string());
}

}  // namespace vkattn::viewer
