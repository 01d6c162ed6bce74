// The viewer's command line: parsed into ViewerArgs by one pure function that throws
// InvalidArgument naming the flag, so that bad input is a message and never a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "render/colormap.hpp"
#include "render/downsample.hpp"
#include "render/region.hpp"
#include "sources/attention_source.hpp"
#include "sources/selection.hpp"

namespace vkattn::viewer {

// What a gguf: source continues when no --prompt is given.
inline constexpr const char* kDefaultPrompt = "In the beginning God created";

struct ViewerArgs {
  bool help = false;
  SourceOptions source{.spec = ""};  // spec empty: the model when built with it, else the demo
  std::string sentence = "The agreement on the European Economic Area was signed in August 1992.";
  bool sentenceGiven = false;  // --sentence or --prompt; else a gguf: source starts from kDefaultPrompt
  std::string view;            // kind id; empty: the source's first
  std::optional<int64_t> layer;
  std::optional<int64_t> head;
  HeadMode aggregate = HeadMode::Single;
  bool rollout = false;
  std::optional<MapChoice> minus;  // A - B: B's layer and head
  std::vector<int64_t> hide;       // hidden columns; -1 stands for the last one
  Colormap colormap = Colormap::Viridis;
  Scale scale = Scale::Linear;
  Reduction reduction = Reduction::Max;  // how bins of several cells are coloured
  std::optional<std::string> title;      // replaces the source's title; the selection is appended
  Region region;
  bool stretch = false;   // cells take the area's aspect instead of being square
  bool overview = false;  // open the grid of all layers x heads instead of the map

  std::string screenshot;  // the whole window, headless
  std::string exportPng;   // the figure alone (map, labels, colour bar), headless
  std::string layout;      // JSON sidecar of the heatmap's pixel rectangle and values
  int width = 1280;
  int height = 800;
  int frames = 0;  // interactive: quit after this many frames (0: run until closed)
  // Headless: after the first frame, this many frames of scripted wheel zooms and drags, each
  // timed (update + GPU reduction + drawing + rendering); a summary goes to stdout and to
  // measureJson when given.
  int measureFrames = 0;
  std::string measureJson;
  std::optional<std::string> device;
  bool validation = false;
  // Window: print "ready" on stdout once the first frame is shown, for programs that start the
  // viewer and must tell a window that opened from one that failed.
  bool printReady = false;

  bool headless() const { return !screenshot.empty() || !exportPng.empty() || measureFrames > 0; }
};

// argv[1..argc-1] -> ViewerArgs. Throws InvalidArgument(flag, problem).
ViewerArgs parseArgs(const std::vector<std::string>& args);
std::string usage();

}  // namespace vkattn::viewer
