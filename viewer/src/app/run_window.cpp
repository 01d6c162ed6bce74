// The interactive viewer: a GLFW window whose swapchain lives on the vkattn context's device and
// queue (the context is created with the window system's extensions and a queue family that can
// present), Dear ImGui on top, redrawn on input and otherwise asleep in glfwWaitEventsTimeout.
// The source computes on that same device (a worker context sharing it), so its maps are
// tensors the heatmap reduces where they are.
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

#include <iostream>
#include <memory>

#include "app/app.hpp"
#include "app/frame_export.hpp"
#include "app/run.hpp"
#include "app/run_common.hpp"
#include "platform/swapchain.hpp"
#include "platform/window.hpp"
#include "render/fonts.hpp"
#include "render/imgui_vulkan.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

// ImGui's GLFW platform backend for one window.
class ImGuiGlfw {
 public:
  explicit ImGuiGlfw(const Window& window) {
    if (!ImGui_ImplGlfw_InitForVulkan(window.handle(), true)) throw Error("Dear ImGui's GLFW backend failed to start");
  }
  ~ImGuiGlfw() { ImGui_ImplGlfw_Shutdown(); }
  ImGuiGlfw(const ImGuiGlfw&) = delete;
  ImGuiGlfw& operator=(const ImGuiGlfw&) = delete;
};

// The window's context, extended so that it can present with its device and queue. It is the
// only device: the source's kernels come from the default pipeline cache (which `vkattn warmup`
// fills) and the window's join it.
ContextOptions presentingContext(const ViewerArgs& args) {
  ContextOptions options = contextOptions(args);
  options.instanceExtensions = GlfwLibrary::instanceExtensions();
  options.deviceExtensions = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
  options.queueFlags = VK_QUEUE_GRAPHICS_BIT;
  options.queueFamilyFilter = &GlfwLibrary::canPresent;
  return options;
}

}  // namespace

int runWindow(const ViewerArgs& args) {
  GlfwLibrary glfw;
  Context ctx(presentingContext(args));
  Window window(args.width, args.height, "vkattn viewer");
  Swapchain swapchain(ctx, window);
  ImGuiScope imgui;
  // The source computes on a thread of its own, on this device: the window shows progress at once
  // instead of staying black while the data loads and kernels compile.
  App app(ctx, std::make_unique<ThreadedSourceRunner>(ctx, resolveSourceOptions(args)), args);
  std::string title = app.windowTitle();
  window.setTitle(title);
  ImGuiGlfw platform(window);
  ImGuiVulkan renderer(ctx, swapchain.renderPass(), swapchain.imageCount());
  FontAtlas fonts(kFontPixels);
  uint64_t glyphsFor = 0;  // the App's texts version the atlas was last checked against

  for (int frame = 0; !window.shouldClose(); ++frame) {
    window.pollOrWait(app.busy() || frame < 2);
    const double now = glfwGetTime();
    app.update(now);
    if (app.windowTitle() != title) {
      title = app.windowTitle();
      window.setTitle(title);
    }
    if (app.textsVersion() != glyphsFor) {
      glyphsFor = app.textsVersion();
      if (fonts.require(app.texts())) {
        fonts.build();
        renderer.uploadFonts();
      }
    }
    app.setFonts(fonts.font(), fonts.largeFont());
    ImGui_ImplGlfw_NewFrame();
    renderer.newFrame();
    ImGui::NewFrame();
    app.drawUi(now);
    ImGui::Render();
    swapchain.drawFrame([&](VkCommandBuffer cmd) { renderer.render(ImGui::GetDrawData(), cmd, app.binImages()); },
                        kClearColor);
    if (frame == 0 && args.printReady) std::cout << "ready" << std::endl;  // flushed: a program waits on it

    if (auto request = app.takeExportRequest()) {
      try {
        exportFigure(ctx, renderer, swapchain.format(), app, request->path, request->width, request->height, "",
                     "export");
        app.setExportStatus("wrote " + request->path);
      } catch (const std::exception& e) {
        app.setExportStatus(e.what());
      }
    }
    if (args.frames > 0 && frame + 1 >= args.frames && app.loaded()) break;
  }
  app.closeSource();
  return validationStatus(ctx);
}

}  // namespace vkattn::viewer
