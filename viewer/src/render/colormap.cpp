#include "render/colormap.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

namespace vkattn::viewer {
namespace {

// Ten evenly spaced samples of matplotlib's viridis and magma (as published with the maps) and
// nine of ColorBrewer's RdBu, blue end first; a linear blend between them stays within a few
// levels of the full tables and keeps their monotone lightness.
constexpr std::array<Rgb, 10> kViridis = {{{0x44, 0x01, 0x54},
                                           {0x48, 0x28, 0x78},
                                           {0x3e, 0x4a, 0x89},
                                           {0x31, 0x68, 0x8e},
                                           {0x26, 0x82, 0x8e},
                                           {0x1f, 0x9e, 0x89},
                                           {0x35, 0xb7, 0x79},
                                           {0x6d, 0xcd, 0x59},
                                           {0xb4, 0xde, 0x2c},
                                           {0xfd, 0xe7, 0x25}}};
constexpr std::array<Rgb, 10> kMagma = {{{0x00, 0x00, 0x04},
                                         {0x18, 0x0f, 0x3e},
                                         {0x45, 0x10, 0x77},
                                         {0x72, 0x1f, 0x81},
                                         {0x9f, 0x2f, 0x7f},
                                         {0xcd, 0x40, 0x71},
                                         {0xf1, 0x60, 0x5d},
                                         {0xfd, 0x95, 0x67},
                                         {0xfe, 0xc9, 0x8d},
                                         {0xfc, 0xfd, 0xbf}}};
constexpr std::array<Rgb, 9> kDiverging = {{{0x21, 0x66, 0xac},
                                            {0x43, 0x93, 0xc3},
                                            {0x92, 0xc5, 0xde},
                                            {0xd1, 0xe5, 0xf0},
                                            {0xf7, 0xf7, 0xf7},
                                            {0xfd, 0xdb, 0xc7},
                                            {0xf4, 0xa5, 0x82},
                                            {0xd6, 0x60, 0x4d},
                                            {0xb2, 0x18, 0x2b}}};
constexpr std::array<Rgb, 2> kGrey = {{{0, 0, 0}, {255, 255, 255}}};

Rgb interpolate(std::span<const Rgb> points, float t) {
  const float x = std::clamp(std::isnan(t) ? 0.0f : t, 0.0f, 1.0f) * static_cast<float>(points.size() - 1);
  const std::size_t i = std::min(static_cast<std::size_t>(x), points.size() - 2);
  const float f = x - static_cast<float>(i);
  auto mix = [f](uint8_t a, uint8_t b) {
    return static_cast<uint8_t>(std::lround(static_cast<float>(a) + (static_cast<float>(b) - a) * f));
  };
  return {mix(points[i].r, points[i + 1].r), mix(points[i].g, points[i + 1].g), mix(points[i].b, points[i + 1].b)};
}

double decode(uint8_t v) {
  const double c = v / 255.0;
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

}  // namespace

Rgb sampleColormap(Colormap map, float t) {
  switch (map) {
    case Colormap::Magma:
      return interpolate(kMagma, t);
    case Colormap::Grey:
      return interpolate(kGrey, t);
    case Colormap::Diverging:
      return interpolate(kDiverging, t);
    case Colormap::Viridis:
      break;
  }
  return interpolate(kViridis, t);
}

double relativeLuminance(Rgb c) {
  return 0.2126 * decode(c.r) + 0.7152 * decode(c.g) + 0.0722 * decode(c.b);
}

const char* toString(Colormap map) noexcept {
  switch (map) {
    case Colormap::Viridis:
      return "viridis";
    case Colormap::Magma:
      return "magma";
    case Colormap::Grey:
      return "grey";
    case Colormap::Diverging:
      return "diverging";
  }
  return "?";
}

const char* toString(Scale scale) noexcept {
  return scale == Scale::Log ? "log" : "linear";
}

std::optional<Colormap> colormapFromString(const std::string& name) {
  for (Colormap m : {Colormap::Viridis, Colormap::Magma, Colormap::Grey, Colormap::Diverging})
    if (name == toString(m)) return m;
  if (name == "gray") return Colormap::Grey;
  return std::nullopt;
}

ColorScale::ColorScale(Colormap map, Scale scale, float min, float max) : m_map(map), m_scale(scale) {
  if (diverging()) {
    const float m = std::max({std::fabs(min), std::fabs(max), 1e-12f});
    m_lo = -m;
    m_hi = m;
    m_floor = m * 1e-3f;
  } else {
    m_lo = min;
    m_hi = max > min ? max : min + 1e-12f;
    m_floor = std::max(m_hi * 1e-4f, 1e-30f);
  }
}

float ColorScale::normalise(float value) const {
  if (diverging()) {
    if (m_scale == Scale::Linear) return 0.5f + 0.5f * value / m_hi;
    const float mag = std::log1p(std::fabs(value) / m_floor) / std::log1p(m_hi / m_floor);
    return 0.5f + 0.5f * std::copysign(std::min(mag, 1.0f), value);
  }
  if (m_scale == Scale::Linear || m_hi <= m_floor) return (value - m_lo) / (m_hi - m_lo);
  const float top = std::log10(m_hi), bottom = std::log10(m_floor);
  return (std::log10(std::max(value, m_floor)) - bottom) / (top - bottom);
}

float ColorScale::valueAt(float t) const {
  t = std::clamp(t, 0.0f, 1.0f);
  if (diverging()) {
    const float s = 2.0f * t - 1.0f;
    if (m_scale == Scale::Linear) return s * m_hi;
    return std::copysign(m_floor * std::expm1(std::fabs(s) * std::log1p(m_hi / m_floor)), s);
  }
  if (m_scale == Scale::Linear || m_hi <= m_floor) return m_lo + t * (m_hi - m_lo);
  const float top = std::log10(m_hi), bottom = std::log10(m_floor);
  return std::pow(10.0f, bottom + t * (top - bottom));
}

}  // namespace vkattn::viewer
