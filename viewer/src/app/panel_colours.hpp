// The control panel's text colours, shared by App's frame and its panels.
#pragma once

#include <imgui.h>

namespace vkattn::viewer {

inline const ImVec4 kDimText(0.62f, 0.62f, 0.66f, 1.0f);  // read-outs and hints

}  // namespace vkattn::viewer
