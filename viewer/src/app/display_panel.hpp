// How the map is drawn: colormap, linear or log scale, how a bin of several cells is coloured,
// and whether cells stretch to the area's aspect; and the control panel's fields for them.
#pragma once

#include "app/cli_args.hpp"
#include "render/colormap.hpp"
#include "render/downsample.hpp"

namespace vkattn::viewer {

struct DisplaySettings {
  Colormap colormap = Colormap::Viridis;
  Scale scale = Scale::Linear;
  Reduction reduction = Reduction::Max;
  bool stretch = false;
};

// As the command line set them (--colormap, --log, --reduce, --stretch).
DisplaySettings displaySettingsFrom(const ViewerArgs& args);

// The fields (between ImGui::Begin and End). `signedValues`: the map shown is a difference, which
// always takes the diverging map (said under the colormap's field).
void drawDisplaySettings(DisplaySettings& settings, bool signedValues);

}  // namespace vkattn::viewer
