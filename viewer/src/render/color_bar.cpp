#include "render/color_bar.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

namespace vkattn::viewer {
namespace {

constexpr float kLabelGap = 5.0f;

std::string format(float value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", static_cast<double>(value));
  return buffer;
}

// The 1-2-5 step that splits `span` into about `count` parts.
double niceStep(double span, int count) {
  const double raw = span / count;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= raw) return m * decade;
  return 10.0 * decade;
}

void add(std::vector<ColorBarTick>& ticks, const ColorScale& scale, double value) {
  const auto v = static_cast<float>(value);
  const float t = scale.normalise(v);
  if (t < -1e-4f || t > 1.0001f) return;
  // Snap tiny float noise (0.30000001) to the printed round value.
  ticks.push_back({v, std::clamp(t, 0.0f, 1.0f), format(v)});
}

}  // namespace

std::vector<ColorBarTick> colorBarTicks(const ColorScale& scale) {
  std::vector<ColorBarTick> ticks;
  const double lo = scale.valueAt(0.0f), hi = scale.valueAt(1.0f);
  if (!(hi > lo)) return ticks;
  if (scale.scale() == Scale::Linear) {
    const double step = niceStep(hi - lo, 5);
    for (double k = std::ceil(lo / step - 1e-6); k * step <= hi + 1e-6 * step; k += 1.0)
      add(ticks, scale, std::fabs(k) < 1e-9 ? 0.0 : k * step);
    return ticks;
  }
  if (scale.diverging()) {
    add(ticks, scale, 0.0);
    for (int e = static_cast<int>(std::floor(std::log10(hi))); e >= static_cast<int>(std::floor(std::log10(hi))) - 2;
         --e) {
      add(ticks, scale, std::pow(10.0, e));
      add(ticks, scale, -std::pow(10.0, e));
    }
    std::sort(ticks.begin(), ticks.end(), [](const auto& a, const auto& b) { return a.value < b.value; });
    return ticks;
  }
  const int low = static_cast<int>(std::ceil(std::log10(std::max(lo, 1e-30)) - 1e-6));
  const int high = static_cast<int>(std::floor(std::log10(hi) + 1e-6));
  const bool fewDecades = high - low < 2;
  for (int e = low - 1; e <= high; ++e) {
    const double decade = std::pow(10.0, e);
    add(ticks, scale, decade);
    if (fewDecades) {
      add(ticks, scale, 2.0 * decade);
      add(ticks, scale, 5.0 * decade);
    }
  }
  std::sort(ticks.begin(), ticks.end(), [](const auto& a, const auto& b) { return a.value < b.value; });
  return ticks;
}

float colorBarWidth(ImFont* font, float pixels, const ColorScale& scale) {
  float widest = font->CalcTextSizeA(pixels, FLT_MAX, 0, "0.00").x;
  for (const ColorBarTick& tick : colorBarTicks(scale))
    widest = std::max(widest, font->CalcTextSizeA(pixels, FLT_MAX, 0, tick.label.c_str()).x);
  return kColorBarGap + kColorBarWidth + kLabelGap + widest + 2.0f;
}

float drawColorBar(ImDrawList& list, ImFont* font, float pixels, ImVec2 min, ImVec2 max, const ColorScale& scale,
                   ImU32 text) {
  constexpr int kSegments = 64;
  const float height = max.y - min.y;
  for (int i = 0; i < kSegments; ++i) {
    // Segment i spans t in [i/N, (i+1)/N], drawn bottom (low) to top (high).
    const float t0 = static_cast<float>(i) / kSegments, t1 = static_cast<float>(i + 1) / kSegments;
    const ImU32 low = packOpaque(sampleColormap(scale.colormap(), t0));
    const ImU32 high = packOpaque(sampleColormap(scale.colormap(), t1));
    list.AddRectFilledMultiColor(ImVec2(min.x, max.y - t1 * height), ImVec2(max.x, max.y - t0 * height), high, high,
                                 low, low);
  }
  list.AddRect(min, max, IM_COL32(128, 128, 128, 255));
  float right = max.x;
  float lastY = 1e30f;
  for (const ColorBarTick& tick : colorBarTicks(scale)) {
    const float y = max.y - tick.position * height;
    // Ticks point into the bar: outside it they would read as minus signs before the labels.
    list.AddLine(ImVec2(max.x - 5.0f, y), ImVec2(max.x, y), IM_COL32(128, 128, 128, 255));
    if (lastY - y < pixels) continue;  // would overlap the label below
    lastY = y;
    const float labelY = std::clamp(y - 0.5f * pixels, min.y - 0.5f * pixels, max.y - 0.5f * pixels);
    list.AddText(font, pixels, ImVec2(max.x + kLabelGap, labelY), text, tick.label.c_str());
    right = std::max(right, max.x + kLabelGap + font->CalcTextSizeA(pixels, FLT_MAX, 0, tick.label.c_str()).x);
  }
  return right;
}

}  // namespace vkattn::viewer
