// --measure-frames: a fixed script of wheel zooms and drags over the map, and the timing of each
// step, so that "every pan or zoom step stays under 100 ms" is a number anyone can re-measure.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "app/app.hpp"
#include "app/cli_args.hpp"
#include "vkattn/core/context.hpp"

namespace vkattn::viewer {

// Step i: zoom in at wandering points for a while, drag around, zoom back out, and so on.
struct ScriptedInput {
  float zoom = 0.0f;           // wheel notches (+ in); 0: a drag
  float x = 0.5f, y = 0.5f;    // zoom point, fractions of the heatmap
  float dx = 0.0f, dy = 0.0f;  // drag, fractions of the heatmap
};
ScriptedInput scriptedInput(int step);

class FrameTimer {
 public:
  void start() { m_start = std::chrono::steady_clock::now(); }
  void stop(const std::string& kind);
  const std::vector<double>& milliseconds() const noexcept { return m_ms; }
  const std::vector<std::string>& kinds() const noexcept { return m_kinds; }

 private:
  std::chrono::steady_clock::time_point m_start;
  std::vector<double> m_ms;
  std::vector<std::string> m_kinds;
};

// Prints the slowest, median and mean step (and per kind) and writes args.measureJson if given.
void reportFrameTimes(const FrameTimer& timer, const App& app, const Context& ctx, const ViewerArgs& args);

}  // namespace vkattn::viewer
