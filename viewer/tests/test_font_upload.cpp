// The font atlas path end to end on the device, with validation on: glyphs that appear later
// (Chinese tokens after a Latin start) rebuild the atlas, the Vulkan backend is re-created to
// upload it, and the next frame draws the new glyphs instead of the fallback.
#include <gtest/gtest.h>
#include <imgui.h>

#include <optional>

#include "imgui_test_scope.hpp"
#include "render/fonts.hpp"
#include "render/imgui_vulkan.hpp"
#include "render/offscreen.hpp"
#include "support/test_context.hpp"

namespace vkattn::viewer {
namespace {

class FontUpload : public test::VkattnTest {
 protected:
  void SetUp() override {
    VkattnTest::SetUp();
    m_imgui.emplace(ImVec2(kWidth, kHeight), TestFont::OwnAtlas);
  }
  void TearDown() override {
    m_imgui.reset();
    VkattnTest::TearDown();
  }
  std::optional<ImGuiTestScope> m_imgui;
  static constexpr uint32_t kWidth = 160, kHeight = 48;
};

TEST_F(FontUpload, NewGlyphsRebuildAndUploadTheAtlas) {
  FontAtlas fonts(28.0f);
  if (!std::filesystem::exists(kDefaultFontFile)) GTEST_SKIP() << kDefaultFontFile << " is not installed";
  {
    OffscreenTarget target(ctx(), VK_FORMAT_R8G8B8A8_UNORM, kWidth, kHeight);
    ImGuiVulkan renderer(ctx(), target.renderPass(), 2);
    BinImages images;  // none drawn here
    ASSERT_TRUE(fonts.require({"attention"}));
    fonts.build();
    renderer.uploadFonts();
    EXPECT_TRUE(fonts.fileFont());

    auto draw = [&](const char* text) {
      renderer.newFrame();
      ImGui::NewFrame();
      ImGui::GetForegroundDrawList()->AddText(fonts.font(), 28.0f, ImVec2(8, 8), IM_COL32(255, 255, 255, 255), text);
      ImGui::Render();
      return target.render([&](VkCommandBuffer cmd) { renderer.render(ImGui::GetDrawData(), cmd, images); },
                           {{0, 0, 0, 1}});
    };
    auto lit = [](const std::vector<uint8_t>& rgba) {
      std::size_t n = 0;
      for (std::size_t i = 0; i < rgba.size(); i += 4) n += rgba[i] > 128;
      return n;
    };
    const auto latin = draw("attention");
    EXPECT_GT(lit(latin), 50u) << "text is drawn";
    const auto fallback = draw("注意力");  // not in the atlas yet: ImGui's '?'
    EXPECT_TRUE(fonts.require({"注意力"}));
    EXPECT_EQ(fonts.glyphCount(), 3u);
    fonts.build();
    renderer.uploadFonts();
    const auto chinese = draw("注意力");
    EXPECT_NE(chinese, fallback) << "the new glyphs replace the fallback";
    EXPECT_GT(lit(chinese), lit(fallback)) << "three dense ideographs light more pixels than three question marks";
    EXPECT_FALSE(fonts.require({"注意力", "attention"})) << "nothing new: no rebuild";
  }
}

}  // namespace
}  // namespace vkattn::viewer
