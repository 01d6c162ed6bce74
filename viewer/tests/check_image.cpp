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
#include <sstream>
#include <string>
#include <vector>

#include "json_lite.hpp"
#include "vkattn/io/npy.hpp"
#include "render/colormap.hpp"

namespace {

using vkattn::viewer::ColorScale;
using vkattn::viewer::Rgb;
using vkattn::viewer::test::Json;
using vkattn::viewer::test::JsonParser;

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
  return 0;
}

std::vector<double> numbers(const Json& array) {
  std::vector<double> out;
  for (const Json& item : array.items) out.push_back(item.number);
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
      if (position[i] > position[j] + gap && light[i] <= light[j]) ++bad;
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "--make-npy") return makeNpy(args[1]);
  std::string imagePath, layoutPath, size;
  std::size_t minRows = 3;  // rows whose largest value stands out, at least
  bool usage = args.size() % 2 != 0;
  for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
    if (args[i] == "--image")
      imagePath = args[i + 1];
    else if (args[i] == "--layout")
      layoutPath = args[i + 1];
    else if (args[i] == "--size")
      size = args[i + 1];
    else if (args[i] == "--min-rows")
      minRows = std::stoul(args[i + 1]);
    else
      usage = true;
  }
  if (usage || imagePath.empty() || size.empty()) {
    std::cerr << "usage: viewer_check_image --image PNG --size WxH [--layout JSON] [--min-rows N] | --make-npy DIR\n";
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
    return Rgb{pixels[i], pixels[i + 1], pixels[i + 2]};
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
  const Json layout = JsonParser(text.str()).parse();
  check(layout["image"]["width"].number == width && layout["image"]["height"].number == height,
        "layout's image size differs from the PNG's");
  const Json& heatmap = layout["heatmap"];
  check(heatmap["x0"].number >= 0 && heatmap["y0"].number >= 0 && heatmap["x1"].number <= width &&
            heatmap["y1"].number <= height && heatmap["x1"].number - heatmap["x0"].number > 16 &&
            heatmap["y1"].number - heatmap["y0"].number > 16,
        "heatmap rectangle lies outside the image or is tiny");

  const Json& grid = layout["grid"];
  const auto rowPx = numbers(grid["rowPixels"]), colPx = numbers(grid["colPixels"]);
  const auto rows = static_cast<std::size_t>(grid["rows"].number), cols = static_cast<std::size_t>(grid["cols"].number);
  check(rowPx.size() == rows + 1 && colPx.size() == cols + 1, "grid edges do not match its size");
  if (!grid.has("values") || failures) return failures ? 1 : 0;

  const auto map = vkattn::viewer::colormapFromString(layout["colormap"].text);
  const ColorScale scale(*map,
                         layout["scale"].text == "log" ? vkattn::viewer::Scale::Log : vkattn::viewer::Scale::Linear,
                         static_cast<float>(layout["range"][0].number), static_cast<float>(layout["range"][1].number));
  std::vector<double> positions, lights;
  std::size_t sampled = 0, colourMisses = 0, rowsChecked = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const Json& row = grid["values"][r];
    double best = -1e300, second = -1e300, brightest = -1;
    std::size_t bestCol = 0, brightestCol = 0;
    bool rowSampled = true;
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = row[c].number;
      // The part of the bin inside the heatmap, and a pixel whose centre lies well inside it.
      const double x0 = std::max(colPx[c], heatmap["x0"].number), x1 = std::min(colPx[c + 1], heatmap["x1"].number);
      const double y0 = std::max(rowPx[r], heatmap["y0"].number), y1 = std::min(rowPx[r + 1], heatmap["y1"].number);
      const int px = insidePixel(x0, x1), py = insidePixel(y0, y1);
      if (px < 0 || py < 0 || px >= width || py >= height) {
        rowSampled = false;
        continue;
      }
      const Rgb got = pixel(px, py);
      const Rgb want = scale.color(static_cast<float>(v));
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
  check(colourMisses <= sampled / 50, std::to_string(colourMisses) + " of " + std::to_string(sampled) +
                                          " bins differ from the colour scale's colour by more than 2 levels");
  if (!scale.diverging()) {
    check(rowsChecked >= std::min(rows, minRows), "too few rows with a clear maximum to check");
    const std::size_t bad = discordantPairs(positions, lights, 0.05);
    check(bad == 0, std::to_string(bad) + " pairs of bins are brighter for the smaller value");
  }
  std::cout << "checked " << width << "x" << height << ": " << sampled << " bins sampled, " << rowsChecked
            << " row maxima, " << colourMisses << " colour misses, " << distinct << " colours\n";
  return failures ? 1 : 0;
}
