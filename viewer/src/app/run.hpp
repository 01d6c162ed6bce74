// The two ways the viewer runs: a window (GLFW swapchain on the vkattn device), or headless
// (one frame rendered offscreen and written as PNG, plus the layout sidecar).
#pragma once

#include "app/cli_args.hpp"

namespace vkattn::viewer {

// Returns the process exit status. Errors are thrown (vkattn::Error) for main to report.
int runWindow(const ViewerArgs& args);
int runHeadless(const ViewerArgs& args);

}  // namespace vkattn::viewer
