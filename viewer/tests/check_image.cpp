// viewer_check_image: reads a PNG the viewer wrote and its layout sidecar, and checks that the
// picture shows the map: the requested size, not blank, each drawn bin coloured as the colour
// scale says for its value, the brightest bin of each row where the row's largest value is, and
// brightness rising with value across bins. `--make-npy DIR` writes a small attention.npy with French and
// Chinese tokens for the npy screenshot test.
#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "render/colormap.hpp"
#include "render/fonts.hpp"
#include "vkattn/io/npy.hpp"

namespace {

using vkattn::viewer::ColorScale;
using vkattn::viewer::Rgb;
using Json = nlohmann::json;

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "FAIL: " << what << "\n";
    ++failures;
  }
}

int makeNpy(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const int64_t layers = 2, heads = 3, rows = 6, cols = 7;
  std::vector<float> values;
  for (int64_t l = 0; l < layers; ++l)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t r = 0; r < rows; ++r) {
        // Row r peaks at column (r + l + h) % cols, the rest shares what is left.
        const int64_t peak = (r + l + h) % cols;
        for (int64_t c = 0; c < cols; ++c)
          values.push_back(c == peak ? 0.7f : 0.3f / (cols - 1) * (1 + 0.1f * c) / 1.3f);
      }
  vkattn::io::writeNpy(dir / "attention.npy", {layers, heads, rows, cols}, values);
  std::ofstream(dir / "row_tokens.txt") << "我\n们\n是\n朋\n友\n。\n";
  std::ofstream(dir / "col_tokens.txt") << "nous\nsommes\ndes\namis\nà\nl'école\n<eos>\n";
  std::ofstream(dir / "cjk_cols.txt") << "我们\n是\n好朋友\n在\n学校\n。\n<eos>\n";
  return 0;
}

std::vector<double> numbers(const Json& array) {
  std::vector<double> out;
  for (const Json& item : array) out.push_back(item.get<double>());
  return out;
}

// A pixel whose centre lies at least a quarter pixel inside [begin, end), or -1.
int insidePixel(double begin, double end) {
  const double middle = 0.5 * (begin + end);
  for (double p : {std::floor(middle), std::floor(middle) - 1, std::floor(middle) + 1})
    if (p + 0.5 >= begin + 0.25 && p + 0.5 <= end - 0.25) return static_cast<int>(p);
  return -1;
}

// Pairs of bins whose colour-scale positions differ by more than `gap` but whose brightness is
// ordered the other way (subsampled to at most ~2000 bins).
std::size_t discordantPairs(const std::vector<double>& position, const std::vector<double>& light, double gap) {
  const std::size_t step = position.size() / 2000 + 1;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < position.size(); i += step)
    for (std::size_t j = 0; j < position.size(); j += step)
      if (position.at(i) > position.at(j) + gap && light.at(i) <= light.at(j)) ++bad;
  return bad;
}

bool isRoundTick(double v) {
  if (v == 0.0) return true;
  const double a = std::fabs(v), decade = std::pow(10.0, std::floor(std::log10(a) + 1e-9));
  const double m = a / decade;
  for (double want : {1.0, 2.0, 5.0, 10.0})
    if (std::fabs(m - want) < 1e-3 * want) return true;
  // 1-2-5 steps also land on their multiples within a decade (0.4, 0.6, 0.8 for a step of 0.2).
  return std::fabs(m * 10.0 - std::round(m * 10.0)) < 1e-3;
}

bool hasCjk(const std::string& text) {
  for (uint32_t cp : vkattn::viewer::decodeUtf8(text))
    if (cp >= 0x2e80 && cp <= 0x9fff) return true;
  return false;
}

// Checks of the figure as a whole, from the layout alone.
void checkFigure(const Json& layout, int width, const std::string& sameArea, double minLabelPixels,
                 const std::string& titleHas, const std::string& titleLacks, const std::string& unknownWord) {
  const Json& cells = layout.at("cells");
  if (!cells.at("stretch").get<bool>())
    check(std::fabs(cells.at("width").get<double>() - cells.at("height").get<double>()) < 1e-3,
          "cells are " + std::to_string(cells.at("width").get<double>()) + " x " +
              std::to_string(cells.at("height").get<double>()) + " px, not square");
  const Json& bar = layout.at("colorBar");
  check(bar.at("labelRight").get<double>() <= width,
        "colour bar labels reach x = " + std::to_string(bar.at("labelRight").get<double>()) + ", past the image's " +
            std::to_string(width) + " px");
  check(!bar.at("ticks").empty(), "the colour bar has no ticks");
  for (const Json& tick : bar.at("ticks"))
    check(isRoundTick(tick.get<double>()),
          "colour bar tick " + std::to_string(tick.get<double>()) + " is not a round value");
  const Json& columns = layout.at("labels").at("columns");
  for (const Json& label : columns) {
    const auto col = static_cast<std::size_t>(label.at("col").get<double>());
    if (col < layout.at("colTokens").size() && hasCjk(layout.at("colTokens").at(col).get<std::string>()))
      check(label.at("mode").get<std::string>() != "rotated",
            "CJK column label " + std::to_string(col) + " is turned sideways");
  }
  if (minLabelPixels > 0)
    check(layout.at("labels").at("rowPixels").get<double>() >= minLabelPixels &&
              layout.at("labels").at("colPixels").get<double>() >= minLabelPixels,
          "labels are " + std::to_string(layout.at("labels").at("rowPixels").get<double>()) +
              " px, expected at least " + std::to_string(minLabelPixels));
  const std::string& title = layout.at("map").at("title").get<std::string>();
  if (!titleHas.empty())
    check(title.find(titleHas) != std::string::npos, "title '" + title + "' lacks '" + titleHas + "'");
  if (!titleLacks.empty())
    check(title.find(titleLacks) == std::string::npos, "title '" + title + "' has '" + titleLacks + "'");
  if (!unknownWord.empty()) {
    bool found = false;
    for (const Json& c : layout.at("unknownCols")) {
      const auto col = static_cast<std::size_t>(c.get<double>());
      found |= col < layout.at("colTokens").size() && layout.at("colTokens").at(col).get<std::string>() == unknownWord;
    }
    check(found, "'" + unknownWord + "' is not marked unknown");
    check(layout.at("warning").get<std::string>().find(unknownWord) != std::string::npos,
          "no warning names '" + unknownWord + "'");
  }
  if (!sameArea.empty()) {
    std::ifstream in(sameArea);
    std::stringstream text;
    text << in.rdbuf();
    const Json other = Json::parse(text.str());
    for (const char* edge : {"x0", "y0", "x1", "y1"})
      check(std::fabs(layout.at("heatmap").at(edge).get<double>() - other.at("heatmap").at(edge).get<double>()) <= 1.5,
            std::string("heatmap edge ") + edge + " is " + std::to_string(layout.at("heatmap").at(edge).get<double>()) +
                ", " + sameArea + " has " + std::to_string(other.at("heatmap").at(edge).get<double>()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args.at(0) == "--make-npy") return makeNpy(args.at(1));
  std::string imagePath, layoutPath, size, sameArea, titleHas, titleLacks, unknownWord;
  std::size_t minRows = 3;  // rows whose largest value stands out, at least
  double minLabelPixels = 0;
  std::size_t minSpecial = 0;  // hidden or masked bins expected
  bool usage = args.size() % 2 != 0;
  for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
    if (args.at(i) == "--image")
      imagePath = args[i + 1];
    else if (args.at(i) == "--layout")
      layoutPath = args[i + 1];
    else if (args.at(i) == "--size")
      size = args[i + 1];
    else if (args.at(i) == "--min-rows")
      minRows = std::stoul(args[i + 1]);
    else if (args.at(i) == "--same-area")
      sameArea = args[i + 1];
    else if (args.at(i) == "--min-label-pixels")
      minLabelPixels = std::stod(args[i + 1]);
    else if (args.at(i) == "--min-special")
      minSpecial = std::stoul(args[i + 1]);
    else if (args.at(i) == "--title-has")
      titleHas = args[i + 1];
    else if (args.at(i) == "--title-lacks")
      titleLacks = args[i + 1];
    else if (args.at(i) == "--unknown-word")
      unknownWord = args[i + 1];
    else
      usage = true;
  }
  if (usage || imagePath.empty() || size.empty()) {
    std::cerr << "usage: viewer_check_image --image PNG --size WxH [--layout JSON] [--min-rows N] [--same-area JSON]\n"
                 "       [--min-label-pixels P] [--min-special N] [--title-has T] [--title-lacks T]\n"
                 "       [--unknown-word W] | --make-npy DIR\n";
    return 2;
  }
  int width = 0, height = 0, channels = 0;
  unsigned char* data = stbi_load(imagePath.c_str(), &width, &height, &channels, 4);
  if (!data) {
    std::cerr << "FAIL: cannot read " << imagePath << "\n";
    return 1;
  }
  std::vector<unsigned char> pixels(data, data + static_cast<std::size_t>(width) * height * 4);
  stbi_image_free(data);
  int wantW = 0, wantH = 0;
  std::sscanf(size.c_str(), "%dx%d", &wantW, &wantH);
  check(width == wantW && height == wantH,
        "image is " + std::to_string(width) + "x" + std::to_string(height) + ", asked for " + size);

  auto pixel = [&](int x, int y) {
    const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 4;
    return Rgb{pixels.at(i), pixels[i + 1], pixels[i + 2]};
  };
  // Not blank: many colours and real contrast.
  std::vector<uint32_t> colors;
  double sum = 0, sum2 = 0;
  for (int y = 0; y < height; y += 2)
    for (int x = 0; x < width; x += 2) {
      const Rgb c = pixel(x, y);
      colors.push_back((c.r << 16) | (c.g << 8) | c.b);
      const double l = vkattn::viewer::relativeLuminance(c);
      sum += l;
      sum2 += l * l;
    }
  std::sort(colors.begin(), colors.end());
  const auto distinct = std::unique(colors.begin(), colors.end()) - colors.begin();
  const double n = static_cast<double>(colors.size());
  const double deviation = std::sqrt(std::max(0.0, sum2 / n - (sum / n) * (sum / n)));
  check(distinct >= 16, "image has only " + std::to_string(distinct) + " colours");
  check(deviation > 0.03, "image is nearly flat (luminance deviation " + std::to_string(deviation) + ")");

  if (layoutPath.empty()) {
    std::cout << "checked " << width << "x" << height << ": " << distinct << " colours (no layout)\n";
    return failures ? 1 : 0;
  }
  std::ifstream in(layoutPath);
  std::stringstream text;
  text << in.rdbuf();
  const Json layout = Json::parse(text.str());
  check(
      layout.at("image").at("width").get<double>() == width && layout.at("image").at("height").get<double>() == height,
      "layout's image size differs from the PNG's");
  const Json& heatmap = layout.at("heatmap");
  check(heatmap.at("x0").get<double>() >= 0 && heatmap.at("y0").get<double>() >= 0 &&
            heatmap.at("x1").get<double>() <= width && heatmap.at("y1").get<double>() <= height &&
            heatmap.at("x1").get<double>() - heatmap.at("x0").get<double>() > 16 &&
            heatmap.at("y1").get<double>() - heatmap.at("y0").get<double>() > 16,
        "heatmap rectangle lies outside the image or is tiny");

  checkFigure(layout, width, sameArea, minLabelPixels, titleHas, titleLacks, unknownWord);

  const Json& grid = layout.at("grid");
  const auto rowPx = numbers(grid.at("rowPixels")), colPx = numbers(grid.at("colPixels"));
  const auto rows = static_cast<std::size_t>(grid.at("rows").get<double>()),
             cols = static_cast<std::size_t>(grid.at("cols").get<double>());
  check(rowPx.size() == rows + 1 && colPx.size() == cols + 1, "grid edges do not match its size");
  if (!grid.contains("values") || failures) return failures ? 1 : 0;

  const auto map = vkattn::viewer::colormapFromString(layout.at("colormap").get<std::string>());
  const ColorScale scale(
      *map, layout.at("scale").get<std::string>() == "log" ? vkattn::viewer::Scale::Log : vkattn::viewer::Scale::Linear,
      static_cast<float>(layout.at("range").at(0).get<double>()),
      static_cast<float>(layout.at("range").at(1).get<double>()));
  std::vector<double> positions, lights;
  std::size_t sampled = 0, colourMisses = 0, rowsChecked = 0, special = 0, specialMisses = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const Json& row = grid.at("values").at(r);
    double best = -1e300, second = -1e300, brightest = -1;
    std::size_t bestCol = 0, brightestCol = 0;
    bool rowSampled = true;
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = row.at(c).get<double>();
      // The part of the bin inside the heatmap, and a pixel whose centre lies well inside it.
      const double x0 = std::max(colPx.at(c), heatmap.at("x0").get<double>()),
                   x1 = std::min(colPx[c + 1], heatmap.at("x1").get<double>());
      const double y0 = std::max(rowPx.at(r), heatmap.at("y0").get<double>()),
                   y1 = std::min(rowPx[r + 1], heatmap.at("y1").get<double>());
      const int px = insidePixel(x0, x1), py = insidePixel(y0, y1);
      if (px < 0 || py < 0 || px >= width || py >= height) {
        rowSampled = false;
        continue;
      }
      const Rgb got = pixel(px, py);
      const Rgb want = scale.color(static_cast<float>(v));
      if (grid.contains("kinds") && grid.at("kinds").at(r).at(c).get<double>() != 0) {
        // Hidden or masked: drawn in greys (with hatching), unlike the colour of its value.
        ++special;
        const int spread = std::max({got.r, got.g, got.b}) - std::min({got.r, got.g, got.b});
        const int away = std::abs(got.r - want.r) + std::abs(got.g - want.g) + std::abs(got.b - want.b);
        if (spread > 16 || away < 30) ++specialMisses;
        continue;
      }
      ++sampled;
      if (std::abs(got.r - want.r) > 2 || std::abs(got.g - want.g) > 2 || std::abs(got.b - want.b) > 2) ++colourMisses;
      const double light = vkattn::viewer::relativeLuminance(got);
      positions.push_back(scale.normalise(static_cast<float>(v)));
      lights.push_back(light);
      if (v > best) {
        second = best;
        best = v;
        bestCol = c;
      } else if (v > second) {
        second = v;
      }
      if (light > brightest) {
        brightest = light;
        brightestCol = c;
      }
    }
    const double span = scale.max() - scale.min();
    if (rowSampled && !scale.diverging() && cols > 1 && best - second > 0.02 * span) {
      ++rowsChecked;
      check(brightestCol == bestCol, "row " + std::to_string(r) + ": brightest bin is column " +
                                         std::to_string(brightestCol) + ", the largest value is in column " +
                                         std::to_string(bestCol));
    }
  }
  check(sampled >= 16, "only " + std::to_string(sampled) + " bins were large enough to sample");
  check(special >= minSpecial,
        "expected at least " + std::to_string(minSpecial) + " hidden or masked bins, found " + std::to_string(special));
  check(specialMisses == 0, std::to_string(specialMisses) + " of " + std::to_string(special) +
                                " hidden or masked bins look like values instead of grey hatching");
  check(colourMisses <= sampled / 50, std::to_string(colourMisses) + " of " + std::to_string(sampled) +
                                          " bins differ from the colour scale's colour by more than 2 levels");
  if (!scale.diverging()) {
    check(rowsChecked >= std::min(rows, minRows), "too few rows with a clear maximum to check");
    const std::size_t bad = discordantPairs(positions, lights, 0.05);
    check(bad == 0, std::to_string(bad) + " pairs of bins are brighter for the smaller value");
  }
  std::cout << "checked " << width << "x" << height << ": " << sampled << " bins sampled, " << rowsChecked
            << " row maxima, " << colourMisses << " colour misses, " << special << " hidden/masked bins, " << distinct
            << " colours\n";
  return failures ? 1 : 0;
}
