// Colormaps and the value -> colour scale of a heatmap: perceptually uniform viridis and magma,
// grey, and a blue-white-red diverging map for signed A - B differences; linear or log scale.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace vkattn::viewer {

enum class Colormap { Viridis, Magma, Grey, Diverging };
enum class Scale { Linear, Log };

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};

// Opaque RGBA8 with red in the low byte: ImGui's IM_COL32 layout, which bin images use too.
constexpr uint32_t packOpaque(Rgb c) {
  return 0xFF000000u | (uint32_t{c.b} << 16) | (uint32_t{c.g} << 8) | uint32_t{c.r};
}

// Colour at t in [0, 1] (clamped), interpolated linearly between the map's control points.
Rgb sampleColormap(Colormap map, float t);
// Relative luminance (sRGB decoded, Rec. 709 weights) in [0, 1].
double relativeLuminance(Rgb c);

const char* toString(Colormap map) noexcept;
const char* toString(Scale scale) noexcept;
std::optional<Colormap> colormapFromString(const std::string& name);

// Maps values to [0, 1] and back (for colour-bar ticks). Sequential maps span [min, max]; a
// diverging one spans [-m, m] with m = max(|min|, |max|), so that zero is the middle colour.
// Log: sequential maps show log10 over the top four decades below max; diverging ones a
// symmetric log that is linear within max / 1000 of zero.
class ColorScale {
 public:
  ColorScale() = default;
  ColorScale(Colormap map, Scale scale, float min, float max);

  float normalise(float value) const;
  float valueAt(float t) const;
  Rgb color(float value) const { return sampleColormap(m_map, normalise(value)); }

  Colormap colormap() const noexcept { return m_map; }
  Scale scale() const noexcept { return m_scale; }
  bool diverging() const noexcept { return m_map == Colormap::Diverging; }
  float min() const noexcept { return m_lo; }
  float max() const noexcept { return m_hi; }

 private:
  Colormap m_map = Colormap::Viridis;
  Scale m_scale = Scale::Linear;
  float m_lo = 0.0f, m_hi = 1.0f;  // the range shown: [min, max], or [-m, m] when diverging
  float m_floor = 1e-4f;           // log: the smallest value told apart from zero
};

}  // namespace vkattn::viewer
