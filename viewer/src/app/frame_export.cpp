#include "app/frame_export.hpp"

#include "render/offscreen.hpp"
#include "render/png_export.hpp"

namespace vkattn::viewer {

void exportFigure(const Context& ctx, ImGuiVulkan& renderer, VkFormat format, App& app, const std::string& path,
                  uint32_t width, uint32_t height, const std::string& layoutPath, const std::string& argument) {
  OffscreenTarget target(ctx, format, width, height);
  // A draw list of our own, outside ImGui's windows, so the figure has exactly the file's size.
  ImDrawList list(ImGui::GetDrawListSharedData());
  list._ResetForNewFrame();
  list.Flags |= ImDrawListFlags_AllowVtxOffset;  // large maps pass 64k vertices
  const FigureLayout layout = app.drawFigure(list, ImVec2(static_cast<float>(width), static_cast<float>(height)));
  ImDrawList* lists[] = {&list};
  ImDrawData data;
  data.Valid = true;
  data.CmdLists = lists;
  data.CmdListsCount = 1;
  data.TotalVtxCount = list.VtxBuffer.Size;
  data.TotalIdxCount = list.IdxBuffer.Size;
  data.DisplayPos = ImVec2(0, 0);
  data.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
  data.FramebufferScale = ImVec2(1, 1);
  const auto pixels =
      target.render([&](VkCommandBuffer cmd) { renderer.render(&data, cmd, app.binImages()); }, {{1, 1, 1, 1}});
  writePng(path, width, height, pixels, argument);
  if (!layoutPath.empty()) {
    LayoutRecord record{width, height, app.sourceName(), app.viewId(), &layout, &app.displayMap(), app.colorScale()};
    record.reduction = app.reduction();
    record.stale = app.stale();
    record.warning = app.warning();
    writeLayoutJson(layoutPath, record, "--layout");
  }
}

}  // namespace vkattn::viewer
