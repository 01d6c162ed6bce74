#include "app/frame_timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

struct Summary {
  std::size_t count = 0;
  double max = 0, median = 0, mean = 0;
};

Summary summarise(std::vector<double> ms) {
  Summary s;
  s.count = ms.size();
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  s.max = ms.back();
  s.median = ms[ms.size() / 2];
  s.mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  return s;
}

nlohmann::ordered_json json(const Summary& s) {
  return {{"steps", s.count}, {"max_ms", s.max}, {"median_ms", s.median}, {"mean_ms", s.mean}};
}

}  // namespace

ScriptedInput scriptedInput(int step) {
  // Cycles of 40 steps: 12 notches in at points that wander, 16 drags, 12 notches out.
  const int phase = step % 40;
  ScriptedInput in;
  const float wander = 0.5f + 0.3f * std::sin(0.7f * static_cast<float>(step));
  if (phase < 12) {
    in.zoom = 1.0f;
    in.x = wander;
    in.y = 1.0f - wander;
  } else if (phase < 28) {
    in.dx = 0.03f * std::cos(0.4f * static_cast<float>(step));
    in.dy = 0.03f * std::sin(0.4f * static_cast<float>(step));
  } else {
    in.zoom = -1.0f;
    in.x = 1.0f - wander;
    in.y = wander;
  }
  return in;
}

void FrameTimer::stop(const std::string& kind) {
  m_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start).count());
  m_kinds.push_back(kind);
}

void reportFrameTimes(const FrameTimer& timer, const App& app, const Context& ctx, const ViewerArgs& args) {
  std::vector<double> zoom, pan;
  for (std::size_t i = 0; i < timer.milliseconds().size(); ++i)
    (timer.kinds()[i] == "zoom" ? zoom : pan).push_back(timer.milliseconds()[i]);
  const Summary all = summarise(timer.milliseconds()), z = summarise(zoom), p = summarise(pan);
  std::printf(
      "%s on %s, %dx%d, %zu steps: slowest %.1f ms, median %.1f ms, mean %.1f ms "
      "(zoom: slowest %.1f ms; pan: slowest %.1f ms)\n",
      app.sourceName().c_str(), ctx.info().name.c_str(), args.width, args.height, all.count, all.max, all.median,
      all.mean, z.max, p.max);
  if (args.measureJson.empty()) return;
  std::ofstream out(args.measureJson);
  const nlohmann::ordered_json report = {{"source", app.sourceName()},
                                         {"device", ctx.info().name},
                                         {"width", args.width},
                                         {"height", args.height},
                                         {"all", json(all)},
                                         {"zoom", json(z)},
                                         {"pan", json(p)},
                                         {"steps_ms", timer.milliseconds()}};
  out << report.dump(1) << "\n";
  if (!out) throw InvalidArgument("--measure-json", "cannot write " + args.measureJson);
}

}  // namespace vkattn::viewer
