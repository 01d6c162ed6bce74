// The colour bar beside a heatmap: the scale's colours bottom (low) to top (high) with ticks at
// round values (1-2-5 steps on linear scales, decades on log scales), labels placed inside the
// space the caller gives so they are never cut at the figure's edge.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "render/colormap.hpp"

namespace vkattn::viewer {

struct ColorBarTick {
  float value = 0.0f;
  float position = 0.0f;  // scale.normalise(value), 0 bottom .. 1 top
  std::string label;
};

// Round values within the scale's range: multiples of 1, 2 or 5 x 10^k (about five) for linear
// scales; powers of ten for log scales (with 2 and 5 x 10^k when fewer than three decades show);
// zero and symmetric decades for diverging log scales.
std::vector<ColorBarTick> colorBarTicks(const ColorScale& scale);

// Width the bar, its ticks and their labels take at label size `pixels`.
float colorBarWidth(ImFont* font, float pixels, const ColorScale& scale);

// Draws the bar in [min, max] (the bar itself is `barWidth` wide at min.x), labels to its right
// in `pixels`; returns the rightmost pixel a label reaches.
float drawColorBar(ImDrawList& list, ImFont* font, float pixels, ImVec2 min, ImVec2 max, const ColorScale& scale,
                   ImU32 text);

inline constexpr float kColorBarGap = 14.0f;  // between the heatmap and the bar
inline constexpr float kColorBarWidth = 14.0f;

}  // namespace vkattn::viewer
