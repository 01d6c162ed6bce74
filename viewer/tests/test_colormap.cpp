// Colormap endpoints, monotone lightness of the sequential maps, the diverging map's neutral
// middle, and the value <-> [0, 1] scales.
#include <gtest/gtest.h>

#include "render/colormap.hpp"

namespace vkattn::viewer {
namespace {

TEST(Colormap, Endpoints) {
  auto same = [](Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; };
  EXPECT_TRUE(same(sampleColormap(Colormap::Viridis, 0.0f), Rgb{0x44, 0x01, 0x54}));
  EXPECT_TRUE(same(sampleColormap(Colormap::Viridis, 1.0f), Rgb{0xfd, 0xe7, 0x25}));
  EXPECT_TRUE(same(sampleColormap(Colormap::Magma, 0.0f), Rgb{0x00, 0x00, 0x04}));
  EXPECT_TRUE(same(sampleColormap(Colormap::Magma, 1.0f), Rgb{0xfc, 0xfd, 0xbf}));
  EXPECT_TRUE(same(sampleColormap(Colormap::Grey, 0.0f), Rgb{0, 0, 0}));
  EXPECT_TRUE(same(sampleColormap(Colormap::Grey, 1.0f), Rgb{255, 255, 255}));
  EXPECT_TRUE(same(sampleColormap(Colormap::Grey, -3.0f), Rgb{0, 0, 0})) << "t is clamped";
  EXPECT_TRUE(same(sampleColormap(Colormap::Grey, 7.0f), Rgb{255, 255, 255}));
}

TEST(Colormap, SequentialMapsGetLighterMonotonically) {
  // Strictly lighter from one twentieth of the range to the next; within 8-bit rounding (a
  // channel that falls while the others rise can cost a level, up to 0.004 near white) at every
  // one-thousandth.
  for (Colormap map : {Colormap::Viridis, Colormap::Magma, Colormap::Grey}) {
    auto light = [map](int i, int steps) {
      return relativeLuminance(sampleColormap(map, static_cast<float>(i) / steps));
    };
    for (int i = 1; i <= 20; ++i) EXPECT_GT(light(i, 20), light(i - 1, 20)) << toString(map) << " at t = " << i / 20.0;
    for (int i = 1; i <= 1000; ++i)
      EXPECT_GE(light(i, 1000), light(i - 1, 1000) - 4e-3) << toString(map) << " at t = " << i / 1000.0;
    EXPECT_GT(light(1, 1) - light(0, 1), 0.5) << toString(map);
  }
}

TEST(Colormap, DivergingIsLightestInTheMiddleAndBlueBelowRedAbove) {
  const Rgb mid = sampleColormap(Colormap::Diverging, 0.5f), low = sampleColormap(Colormap::Diverging, 0.0f),
            high = sampleColormap(Colormap::Diverging, 1.0f);
  EXPECT_GT(relativeLuminance(mid), 0.85);
  EXPECT_GT(low.b, low.r);
  EXPECT_GT(high.r, high.b);
  for (int i = 0; i < 50; ++i) {  // lightness rises towards the middle from both ends
    const float t = static_cast<float>(i) / 100.0f;
    EXPECT_LE(relativeLuminance(sampleColormap(Colormap::Diverging, t)),
              relativeLuminance(sampleColormap(Colormap::Diverging, t + 0.01f)) + 1e-9);
    EXPECT_LE(relativeLuminance(sampleColormap(Colormap::Diverging, 1.0f - t)),
              relativeLuminance(sampleColormap(Colormap::Diverging, 0.99f - t)) + 1e-9);
  }
}

TEST(ColorScale, LinearLogAndDivergingRoundTrip) {
  const ColorScale linear(Colormap::Viridis, Scale::Linear, 0.0f, 0.5f);
  EXPECT_FLOAT_EQ(linear.normalise(0.25f), 0.5f);
  EXPECT_FLOAT_EQ(linear.valueAt(1.0f), 0.5f);

  const ColorScale log(Colormap::Magma, Scale::Log, 0.0f, 1.0f);
  EXPECT_NEAR(log.normalise(1.0f), 1.0f, 1e-6);
  EXPECT_NEAR(log.normalise(0.01f), 0.5f, 1e-6) << "four decades: 1e-2 is half way";
  EXPECT_NEAR(log.normalise(0.0f), 0.0f, 1e-6);
  EXPECT_NEAR(log.valueAt(0.75f), 0.1f, 1e-6);

  const ColorScale diverging(Colormap::Diverging, Scale::Linear, -0.2f, 0.8f);
  EXPECT_FLOAT_EQ(diverging.min(), -0.8f) << "symmetric about zero";
  EXPECT_FLOAT_EQ(diverging.normalise(0.0f), 0.5f);
  EXPECT_FLOAT_EQ(diverging.normalise(-0.8f), 0.0f);
  const ColorScale symlog(Colormap::Diverging, Scale::Log, -1.0f, 1.0f);
  for (float v : {-1.0f, -0.01f, 0.0f, 0.003f, 0.5f}) EXPECT_NEAR(symlog.valueAt(symlog.normalise(v)), v, 1e-5) << v;
  EXPECT_LT(symlog.normalise(-0.01f), 0.5f);
  EXPECT_GT(symlog.normalise(0.01f), 0.5f);
}

TEST(Colormap, Names) {
  EXPECT_EQ(colormapFromString("magma"), Colormap::Magma);
  EXPECT_EQ(colormapFromString("gray"), Colormap::Grey);
  EXPECT_FALSE(colormapFromString("jet"));
}

}  // namespace
}  // namespace vkattn::viewer
