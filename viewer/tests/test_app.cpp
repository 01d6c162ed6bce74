// The App driven frame by frame without a window, on a scripted source: the progress screen
// while the source works, the stale marker after a failed input, the hover tooltip's side, and
// the layout of a small window. ImGui's own window records (imgui_internal.h) say where things
// were drawn.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "app/app.hpp"
#include "imgui_test_scope.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

// A source runner whose results the test hands out.
class ScriptedRunner : public SourceRunner {
 public:
  std::deque<SourceResult> results;
  bool busy = false;
  std::string stage;
  double seconds = 0.0;

  void request(const std::string&) override {}
  std::optional<SourceResult> poll() override {
    if (busy || results.empty()) return std::nullopt;
    SourceResult r = std::move(results.front());
    results.pop_front();
    return r;
  }
  bool working() const override { return busy; }
  std::string progress() const override { return stage; }
  double secondsWorking() const override { return seconds; }
  std::string name() const override { return "scripted"; }
  bool usesSentence() const override { return true; }
};

SourceResult maps(const Context& ctx, const std::string& sentence, int64_t rows, int64_t cols) {
  AttentionKind kind;
  kind.id = "cross";
  kind.title = "Cross-attention";
  for (int64_t r = 0; r < rows; ++r) kind.rowTokens.push_back("r" + std::to_string(r));
  for (int64_t c = 0; c < cols; ++c) kind.colTokens.push_back("c" + std::to_string(c));
  AttentionMap map{2, rows, cols, {}};
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)  // rows sum to 1
        map.weights.push_back(c == (r + h) % cols ? 0.5f + 0.5f / static_cast<float>(cols)
                                                  : 0.5f / static_cast<float>(cols));
  kind.layers.push_back(uploadLayer(ctx, map));
  SourceResult result;
  result.set = AttentionSet{};
  result.set->kinds.push_back(std::move(kind));
  result.sentence = sentence;
  return result;
}

SourceResult failure(const std::string& sentence) {
  SourceResult result;
  result.error = "no token the model knows";
  result.argument = "sentence";
  result.sentence = sentence;
  return result;
}

class AppFrames : public test::VkattnTest {
 protected:
  void SetUp() override {
    VkattnTest::SetUp();
    m_imgui.emplace(ImVec2(1100, 700));
  }
  void TearDown() override {
    m_app.reset();
    m_imgui.reset();
    VkattnTest::TearDown();
  }
  void setSize(float w, float h) { ImGui::GetIO().DisplaySize = ImVec2(w, h); }
  App& start(std::unique_ptr<ScriptedRunner> runner, const ViewerArgs& args = {}) {
    m_runner = runner.get();
    m_app = std::make_unique<App>(ctx(), std::move(runner), args);
    return *m_app;
  }
  void frame() {
    m_now += 1.0 / 60.0;
    m_app->update(m_now);
    ImGui::NewFrame();
    m_app->drawUi(m_now);
    ImGui::Render();
  }
  static ImGuiWindow* shown(const char* name) {
    ImGuiWindow* window = ImGui::FindWindowByName(name);
    return window && window->WasActive ? window : nullptr;
  }

  std::optional<ImGuiTestScope> m_imgui;
  ScriptedRunner* m_runner = nullptr;
  std::unique_ptr<App> m_app;
  double m_now = 0.0;
};

TEST_F(AppFrames, ProgressFillsTheWindowUntilTheMapsArrive) {
  auto runner = std::make_unique<ScriptedRunner>();
  runner->busy = true;
  runner->stage = "compiling kernels";
  runner->seconds = 2.5;
  App& app = start(std::move(runner));
  for (int i = 0; i < 3; ++i) frame();
  EXPECT_FALSE(app.loaded());
  EXPECT_TRUE(app.busy());
  ImGuiWindow* loading = shown("loading");
  ASSERT_NE(loading, nullptr) << "a progress screen, not a black window";
  EXPECT_EQ(loading->Size.x, 1100.0f);
  EXPECT_EQ(loading->Size.y, 700.0f);
  EXPECT_GT(loading->DrawList->CmdBuffer.Size + loading->DrawList->VtxBuffer.Size, 0) << "it draws something";
  EXPECT_EQ(shown("vkattn viewer"), nullptr);

  m_runner->results.push_back(maps(ctx(), "a b c", 5, 6));
  m_runner->busy = false;
  for (int i = 0; i < 3; ++i) frame();
  EXPECT_TRUE(app.loaded());
  EXPECT_EQ(shown("loading"), nullptr);
  EXPECT_NE(shown("vkattn viewer"), nullptr);
  EXPECT_TRUE(app.mainLayout().valid);
}

TEST_F(AppFrames, AFailedInputLeavesTheLastMapMarkedStale) {
  auto runner = std::make_unique<ScriptedRunner>();
  runner->results.push_back(maps(ctx(), "the first sentence", 5, 6));
  App& app = start(std::move(runner));
  frame();
  ASSERT_TRUE(app.loaded());
  EXPECT_FALSE(app.stale());
  EXPECT_EQ(app.displayMap().title.find("stale"), std::string::npos);
  const std::vector<float> before = download(app.displayMap().values).values;

  m_runner->results.push_back(failure("zzz"));
  frame();
  frame();
  EXPECT_TRUE(app.stale());
  EXPECT_EQ(app.displayMap().title.rfind("[stale: shows \"the first sentence\"]", 0), 0u) << app.displayMap().title;
  EXPECT_EQ(download(app.displayMap().values).values, before) << "the last good map stays";

  m_runner->results.push_back(
      maps(ctx(), "", 4, 4));  // the default request (ViewerArgs' sentence) differs: still stale
  frame();
  EXPECT_TRUE(app.stale());
  m_runner->results.push_back(maps(ctx(), ViewerArgs{}.sentence, 4, 4));
  frame();
  EXPECT_FALSE(app.stale());
  EXPECT_EQ(app.displayMap().title.find("stale"), std::string::npos);
  EXPECT_EQ(app.displayMap().values.rows, 4);
}

TEST_F(AppFrames, ASourceThatFailsAtOnceNamesItsArgumentOnce) {
  auto runner = std::make_unique<ScriptedRunner>();
  runner->busy = true;
  App& app = start(std::move(runner));
  frame();
  SourceResult failed;
  failed.argument = "--source";
  failed.error = "folder /x holds neither attention.npy, q.npy and k.npy";
  m_runner->results.push_back(failed);
  m_runner->busy = false;
  try {
    frame();
    ADD_FAILURE() << "the first maps failing ends the run";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "--source");
    EXPECT_STREQ(e.what(), "invalid argument '--source': folder /x holds neither attention.npy, q.npy and k.npy");
  }
  EXPECT_FALSE(app.loaded());
}

TEST_F(AppFrames, TitleReplacesTheSourcesAndTheSelectionFollowsIt) {
  ViewerArgs args;
  args.title = "My heads";
  args.head = 1;
  args.reduction = Reduction::Mean;
  auto runner = std::make_unique<ScriptedRunner>();
  runner->results.push_back(maps(ctx(), "s", 5, 6));  // two heads
  App& app = start(std::move(runner), args);
  frame();
  ASSERT_TRUE(app.loaded());
  EXPECT_EQ(app.displayMap().title, "My heads | head 1");
  EXPECT_EQ(app.reduction(), Reduction::Mean);
  m_runner->results.push_back(maps(ctx(), ViewerArgs{}.sentence, 4, 4));  // a new computation keeps the title
  frame();
  EXPECT_EQ(app.displayMap().title, "My heads | head 1");
}

TEST_F(AppFrames, TheWindowDrawsAOneRowMapAsAStrip) {
  auto runner = std::make_unique<ScriptedRunner>();
  runner->results.push_back(maps(ctx(), "s", 1, 3000));
  App& app = start(std::move(runner));
  frame();
  const FigureLayout& layout = app.mainLayout();
  ASSERT_TRUE(layout.valid);
  EXPECT_TRUE(layout.strip);
  EXPECT_GE(layout.heatmapMax.y - layout.heatmapMin.y, 48.0f) << "not a hairline of square cells";
  EXPECT_LT(layout.cellWidth, 1.0f);
  ASSERT_GT(layout.colLabels.size(), 5u);
  EXPECT_LT(layout.colLabels.size(), 300u) << "labels thinned to what fits";
}

TEST_F(AppFrames, TheOutputTextWrapsInsideThePanel) {
  auto runner = std::make_unique<ScriptedRunner>();
  SourceResult result = maps(ctx(), "s", 5, 6);
  for (int i = 0; i < 40; ++i) result.set->output += "and the LORD thy God, ";
  result.set->status = "scripted: generated on a device with a long name, 117 positions in 0.93 s";
  runner->results.push_back(std::move(result));
  start(std::move(runner));
  for (int i = 0; i < 4; ++i) frame();
  ImGuiWindow* panel = shown("vkattn viewer");
  ASSERT_NE(panel, nullptr);
  EXPECT_LE(panel->ContentSize.x, panel->Size.x - 2.0f * panel->WindowPadding.x)
      << "nothing in the panel, the wrapped output least of all, runs past its edge";
}

TEST_F(AppFrames, TheTooltipOpensAwayFromTheColourBar) {
  auto runner = std::make_unique<ScriptedRunner>();
  runner->results.push_back(maps(ctx(), "s", 6, 6));
  App& app = start(std::move(runner));
  frame();
  const FigureLayout layout = app.mainLayout();
  ASSERT_TRUE(layout.valid);
  ASSERT_GT(layout.colorBarMin.x, layout.heatmapMax.x);
  const float cellY = 0.5f * (layout.heatmapMin.y + layout.heatmapMax.y);

  auto tooltipAt = [&](float x) -> ImRect {
    ImGui::GetIO().MousePos = ImVec2(x, cellY);
    for (int i = 0; i < 3; ++i) frame();  // hover registers, then the tooltip sizes itself
    ImGuiWindow* tooltip = shown("##Tooltip_00");
    if (!tooltip) return ImRect();
    return tooltip->Rect();
  };
  // Over the last column, next to the colour bar: the tooltip opens to the cursor's left.
  const float rightX = layout.heatmapMax.x - 0.5f * layout.cellWidth;
  const ImRect right = tooltipAt(rightX);
  ASSERT_GT(right.GetWidth(), 0.0f) << "a tooltip over the map";
  EXPECT_LE(right.Max.x, rightX) << "left of the cursor";
  EXPECT_LT(right.Max.x, layout.colorBarMin.x) << "the colour bar stays visible";
  // Over the first column, with room on the right: it opens to the cursor's right.
  const float leftX = layout.heatmapMin.x + 0.5f * layout.cellWidth;
  const ImRect left = tooltipAt(leftX);
  ASSERT_GT(left.GetWidth(), 0.0f);
  EXPECT_GT(left.Min.x, leftX);
  if (left.Max.x > layout.colorBarMin.x) ADD_FAILURE() << "a tooltip that reaches the colour bar should open left";
}

TEST_F(AppFrames, ASmallWindowKeepsThePanelScrollableAndTheMapBesideIt) {
  setSize(480, 320);
  auto runner = std::make_unique<ScriptedRunner>();
  runner->results.push_back(maps(ctx(), "s", 5, 6));
  App& app = start(std::move(runner));
  for (int i = 0; i < 3; ++i) frame();
  ImGuiWindow* panel = shown("vkattn viewer");
  ImGuiWindow* map = shown("Attention");
  ASSERT_NE(panel, nullptr);
  ASSERT_NE(map, nullptr);
  EXPECT_LE(panel->Size.x, 240.0f) << "the panel takes at most half";
  EXPECT_EQ(panel->Size.y, 320.0f);
  EXPECT_GT(panel->ScrollMax.y, 0.0f) << "controls that do not fit scroll instead of being clipped";
  EXPECT_EQ(map->Pos.x, panel->Pos.x + panel->Size.x);
  EXPECT_EQ(map->Pos.x + map->Size.x, 480.0f);
  const FigureLayout& layout = app.mainLayout();
  ASSERT_TRUE(layout.valid) << "the map is still drawn";
  EXPECT_GE(layout.heatmapMin.x, map->Pos.x);
  EXPECT_LE(layout.colorBarMax.x, map->Pos.x + map->Size.x);
  EXPECT_LE(layout.heatmapMax.y, 320.0f);
}

}  // namespace
}  // namespace vkattn::viewer
