#include "app/display_panel.hpp"

#include <imgui.h>

#include "app/panel_colours.hpp"

namespace vkattn::viewer {

DisplaySettings displaySettingsFrom(const ViewerArgs& args) {
  return {args.colormap, args.scale, args.reduction, args.stretch};
}

void drawDisplaySettings(DisplaySettings& settings, bool signedValues) {
  static const char* kMaps[] = {"viridis", "magma", "grey", "diverging"};
  int map = static_cast<int>(settings.colormap);
  if (ImGui::Combo("colormap", &map, kMaps, 4)) settings.colormap = static_cast<Colormap>(map);
  if (signedValues) ImGui::TextColored(kDimText, "(differences use the diverging map)");
  bool log = settings.scale == Scale::Log;
  if (ImGui::Checkbox("log scale", &log)) settings.scale = log ? Scale::Log : Scale::Linear;
  static const char* kReductions[] = {"max", "mean"};
  int reduction = settings.reduction == Reduction::Mean ? 1 : 0;
  if (ImGui::Combo("reduce", &reduction, kReductions, 2))
    settings.reduction = reduction ? Reduction::Mean : Reduction::Max;
  ImGui::Checkbox("stretch cells to fill", &settings.stretch);
}

}  // namespace vkattn::viewer
