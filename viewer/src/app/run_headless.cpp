// Headless: no window system at all. ImGui frames are rendered into an offscreen target of the
// requested size on the vkattn device, read back and written as PNG; or, with --measure-frames,
// frames of scripted zooming and panning are timed.
#include <imgui.h>

#include <memory>

#include "app/app.hpp"
#include "app/frame_export.hpp"
#include "app/frame_timing.hpp"
#include "app/run.hpp"
#include "app/run_common.hpp"
#include "render/fonts.hpp"
#include "render/imgui_vulkan.hpp"
#include "render/offscreen.hpp"
#include "render/png_export.hpp"

namespace vkattn::viewer {
namespace {

// ImGui lays out tab bars and auto-sized items over a couple of frames; the last one is kept.
constexpr int kSettleFrames = 3;
constexpr VkFormat kFormat = VK_FORMAT_R8G8B8A8_UNORM;

}  // namespace

int runHeadless(const ViewerArgs& args) {
  Context ctx(contextOptions(args));
  ImGuiScope imgui;
  App app(ctx, std::make_unique<InlineSourceRunner>(ctx, resolveSourceOptions(args)), args);
  const auto width = static_cast<uint32_t>(args.width), height = static_cast<uint32_t>(args.height);
  OffscreenTarget target(ctx, kFormat, width, height);
  ImGuiVulkan renderer(ctx, target.renderPass(), 2);
  FontAtlas fonts(kFontPixels);

  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
  int frame = 0;
  auto drawFrame = [&] {
    const double now = frame / 60.0;
    ++frame;
    io.DeltaTime = 1.0f / 60.0f;
    app.update(now);
    if (fonts.require(app.texts())) {
      fonts.build();
      renderer.uploadFonts();
    }
    app.setFonts(fonts.font(), fonts.largeFont());
    renderer.newFrame();
    ImGui::NewFrame();
    app.drawUi(now);
    ImGui::Render();
  };
  for (int i = 0; i < kSettleFrames; ++i) drawFrame();

  if (args.measureFrames > 0) {
    // Each step is what one wheel notch or one drag event costs the window: the App's update,
    // the GPU reduction of the new region, the ImGui frame and its rendering, read back.
    FrameTimer timer;
    for (int i = 0; i < args.measureFrames; ++i) {
      const ScriptedInput input = scriptedInput(i);
      timer.start();
      if (input.zoom != 0.0f)
        app.zoomAt(input.x, input.y, input.zoom);
      else
        app.panBy(input.dx, input.dy);
      drawFrame();
      target.render([&](VkCommandBuffer cmd) { renderer.render(ImGui::GetDrawData(), cmd, app.binImages()); },
                    kClearColor);
      timer.stop(input.zoom != 0.0f ? "zoom" : "pan");
    }
    reportFrameTimes(timer, app, ctx, args);
  }

  if (!args.screenshot.empty()) {
    const auto pixels = target.render(
        [&](VkCommandBuffer cmd) { renderer.render(ImGui::GetDrawData(), cmd, app.binImages()); }, kClearColor);
    writePng(args.screenshot, width, height, pixels, "--screenshot");
    if (!args.layout.empty()) {
      LayoutRecord record{width,           height, app.sourceName(), app.viewId(), &app.mainLayout(), &app.displayMap(),
                          app.colorScale()};
      record.reduction = app.reduction();
      record.stale = app.stale();
      record.warning = app.warning();
      writeLayoutJson(args.layout, record, "--layout");
    }
  }
  if (!args.exportPng.empty())
    exportFigure(ctx, renderer, kFormat, app, args.exportPng, width, height,
                 args.screenshot.empty() ? args.layout : std::string(), "--export");
  return validationStatus(ctx);
}

}  // namespace vkattn::viewer
