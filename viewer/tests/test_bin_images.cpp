// Bin images (heatmaps drawn as one quad whose fragment shader looks up each pixel's bin) on the
// device, with validation on: every pixel against the pixel-centre rule computed here, clip
// rects, several images in one frame, ImGui's own drawing before and after them, and frames that
// reuse the ring of word buffers.
#include <bin_image_push.h>
#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>
#include <optional>
#include <vector>

#include "imgui_test_scope.hpp"
#include "render/bin_images.hpp"
#include "render/colormap.hpp"
#include "render/imgui_vulkan.hpp"
#include "render/offscreen.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

constexpr uint32_t kWidth = 96, kHeight = 64;
constexpr uint32_t kBackground = 0xFF000000u;

TEST(PixelBins, CentresPickTheBinThatHoldsThem) {
  const std::vector<float> edges = {2.0f, 3.4f, 3.6f, 7.5f};
  // Centres 0.5, 1.5 lie before the first edge; 2.5 in bin 0; 3.5 in bin 1 (the 0.2-wide bin holds
  // it); 4.5 .. 6.5 in bin 2; 7.5 is the last edge itself, outside.
  const std::vector<uint32_t> expected = {BIN_IMAGE_NO_BIN, BIN_IMAGE_NO_BIN, 0, 1, 2, 2, 2, BIN_IMAGE_NO_BIN};
  EXPECT_EQ(pixelBins(edges, 0.0f, 8), expected);
  EXPECT_EQ(pixelBins(edges, 2.0f, 2), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(pixelBins(std::vector<float>{0.0f, 0.4f}, 0.0f, 1), std::vector<uint32_t>{BIN_IMAGE_NO_BIN});
  EXPECT_EQ(pixelBins(std::vector<float>{5.0f}, 0.0f, 2), (std::vector<uint32_t>(2, BIN_IMAGE_NO_BIN)));
}

TEST(BinImagesList, RefusesColoursThatDoNotFitTheBins) {
  const ImGuiTestScope imgui(ImVec2(kWidth, kHeight));
  ImDrawList list(ImGui::GetDrawListSharedData());
  list._ResetForNewFrame();
  list.PushClipRectFullScreen();
  BinImages images;
  const std::vector<float> edges = {0.0f, 4.0f, 8.0f};
  EXPECT_THROW(images.add(list, edges, edges, std::vector<uint32_t>(3)), InvalidArgument);
  images.add(list, edges, edges, std::vector<uint32_t>(4));
  EXPECT_EQ(images.size(), 1u);
  EXPECT_EQ(images.words().size(), 8u + 8u + 4u);  // column bins, row bins, colours
  images.clear();
  EXPECT_EQ(images.size(), 0u);
}

class BinImageDrawing : public test::VkattnTest {
 protected:
  void SetUp() override {
    VkattnTest::SetUp();
    m_imgui.emplace(ImVec2(kWidth, kHeight));
  }
  void TearDown() override {
    m_imgui.reset();
    VkattnTest::TearDown();
  }
  std::optional<ImGuiTestScope> m_imgui;
};

struct Grid {
  std::vector<float> colEdges, rowEdges;
  std::vector<uint32_t> colors;
};

Grid grid(float x0, float y0, int cols, int rows, float cellW, float cellH, uint32_t seed) {
  Grid g;
  for (int i = 0; i <= cols; ++i) g.colEdges.push_back(x0 + cellW * static_cast<float>(i));
  for (int i = 0; i <= rows; ++i) g.rowEdges.push_back(y0 + cellH * static_cast<float>(i));
  for (int i = 0; i < rows * cols; ++i) {
    const uint32_t v = (static_cast<uint32_t>(i) + seed) * 2654435761u;
    g.colors.push_back(
        packOpaque(Rgb{static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 24)}));
  }
  return g;
}

// The colour the pixel-centre rule gives pixel (x, y) of `g`, or `otherwise`.
uint32_t expectedAt(const Grid& g, uint32_t x, uint32_t y, uint32_t otherwise) {
  const float cx = static_cast<float>(x) + 0.5f, cy = static_cast<float>(y) + 0.5f;
  if (cx < g.colEdges.front() || cx >= g.colEdges.back() || cy < g.rowEdges.front() || cy >= g.rowEdges.back())
    return otherwise;
  std::size_t bx = 0, by = 0;
  while (cx >= g.colEdges[bx + 1]) ++bx;
  while (cy >= g.rowEdges[by + 1]) ++by;
  return g.colors[by * (g.colEdges.size() - 1) + bx];
}

uint32_t pixel(const std::vector<uint8_t>& rgba, uint32_t x, uint32_t y) {
  const std::size_t i = 4 * (static_cast<std::size_t>(y) * kWidth + x);
  return packOpaque(Rgb{rgba[i], rgba[i + 1], rgba[i + 2]});
}

TEST_F(BinImageDrawing, EveryPixelTakesTheBinUnderItsCentre) {
  OffscreenTarget target(ctx(), VK_FORMAT_R8G8B8A8_UNORM, kWidth, kHeight);
  ImGuiVulkan renderer(ctx(), target.renderPass(), 2);
  renderer.uploadFonts();
  BinImages images;
  // Fractional, unequal cells; a second image partly clipped; ImGui rectangles drawn before the
  // first image (covered by it) and after the second (over it).
  const Grid a = grid(3.0f, 2.0f, 7, 5, 4.3f, 3.7f, 1);
  const Grid b = grid(50.0f, 20.0f, 9, 11, 2.6f, 3.1f, 99);
  const ImVec2 clipMin(55.0f, 24.0f), clipMax(70.0f, 50.0f);
  const uint32_t white = packOpaque(Rgb{255, 255, 255});
  for (int frame = 0; frame < 3; ++frame) {  // three frames: the ring of word buffers comes round
    images.clear();
    renderer.newFrame();
    ImGui::NewFrame();
    ImDrawList* list = ImGui::GetForegroundDrawList();
    list->AddRectFilled(ImVec2(0, 0), ImVec2(20, 20), white);
    images.add(*list, a.colEdges, a.rowEdges, a.colors);
    list->PushClipRect(clipMin, clipMax, true);
    images.add(*list, b.colEdges, b.rowEdges, b.colors);
    list->PopClipRect();
    list->AddRectFilled(ImVec2(80, 40), ImVec2(90, 60), white);
    ImGui::Render();
    const auto rgba =
        target.render([&](VkCommandBuffer cmd) { renderer.render(ImGui::GetDrawData(), cmd, images); }, {{0, 0, 0, 1}});
    std::size_t wrong = 0;
    for (uint32_t y = 0; y < kHeight; ++y)
      for (uint32_t x = 0; x < kWidth; ++x) {
        uint32_t want = x < 20 && y < 20 ? white : kBackground;
        want = expectedAt(a, x, y, want);
        const bool clipped = x < clipMin.x || x >= clipMax.x || y < clipMin.y || y >= clipMax.y;
        if (!clipped) want = expectedAt(b, x, y, want);
        if (x >= 80 && x < 90 && y >= 40 && y < 60) want = white;
        wrong += pixel(rgba, x, y) != want;
        if (pixel(rgba, x, y) != want && wrong <= 5)
          ADD_FAILURE() << "frame " << frame << " pixel (" << x << ", " << y << "): " << std::hex << pixel(rgba, x, y)
                        << ", expected " << want;
      }
    EXPECT_EQ(wrong, 0u) << "frame " << frame;
  }
}

TEST_F(BinImageDrawing, NothingIsDrawnWithoutTheImagesOfTheDrawList) {
  OffscreenTarget target(ctx(), VK_FORMAT_R8G8B8A8_UNORM, kWidth, kHeight);
  ImGuiVulkan renderer(ctx(), target.renderPass(), 2);
  renderer.uploadFonts();
  BinImages drawn, other;
  renderer.newFrame();
  ImGui::NewFrame();
  const Grid a = grid(0.0f, 0.0f, 4, 4, 10.0f, 10.0f, 5);
  drawn.add(*ImGui::GetForegroundDrawList(), a.colEdges, a.rowEdges, a.colors);
  ImGui::Render();
  // The renderer is handed another (empty) collection: the draw list's images have no painter.
  const auto rgba =
      target.render([&](VkCommandBuffer cmd) { renderer.render(ImGui::GetDrawData(), cmd, other); }, {{0, 0, 0, 1}});
  for (uint32_t y = 0; y < 40; y += 7)
    for (uint32_t x = 0; x < 40; x += 7) EXPECT_EQ(pixel(rgba, x, y), kBackground);
}

}  // namespace
}  // namespace vkattn::viewer
