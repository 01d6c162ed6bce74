#include "app/cli_args.hpp"

#include <charconv>

#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

int64_t parseInt(const std::string& flag, const std::string& text, int64_t lo, int64_t hi) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty())
    throw InvalidArgument(flag, "expected an integer, got '" + text + "'");
  if (value < lo || value > hi)
    throw InvalidArgument(flag,
                          std::to_string(value) + " is out of range " + std::to_string(lo) + ".." + std::to_string(hi));
  return value;
}

double parseNumber(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty()) throw InvalidArgument(flag, "expected a number, got '" + text + "'");
  return value;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = text.find(sep, begin);
    parts.push_back(text.substr(begin, end - begin));
    if (end == std::string::npos) return parts;
    begin = end + 1;
  }
}

}  // namespace

std::string usage() {
  return R"(vkattn-viewer: attention heatmaps drawn with Dear ImGui on the vkattn Vulkan device.

usage: vkattn-viewer [options]

sources
  --source S          demo | demo:N (N synthetic tokens) | model[:DIR] | npy:PATH | gguf:PATH
                      (default: model when built with it, else demo). npy:PATH is an attention
                      .npy [layers?, heads?, rows, cols], or a folder with attention.npy or
                      q.npy and k.npy [layers?, heads?, len, headDim] (+ tokens.txt)
  --sentence TEXT     English input for demo and model (default: the alignment figure's)
  --prompt TEXT       the same: gguf:PATH's prompt (a LLaMA-family GGUF model that generates
                      --max-tokens N more tokens, 48 by default (0: the prompt alone), its
                      attention growing a row per token; default prompt: "In the beginning God
                      created"; a prompt longer than the model's context keeps its last tokens)
  --tokens FILE       token labels, one per line (--row-tokens / --col-tokens for one axis)
  --causal            npy: each query sees only keys up to its own position (q/k: masked in
                      the softmax; attention.npy: the cells past the diagonal hatched)

what to show
  --view V            cross | encoder | decoder (model, demo) or attention (npy)
  --layer L --head H  0-based
  --aggregate A       mean | max over the layer's heads
  --rollout           attention rollout through --layer (self-attention views)
  --minus L:H         show the selection minus layer L head H (diverging colours)
  --hide C1,C2,...    hide columns (sink tokens; -1 is the last), rows renormalised
  --colormap M        viridis | magma | grey | diverging
  --log               log colour scale
  --reduce R          max | mean: how a bin of several cells is coloured when the map has
                      more cells than pixels (default max)
  --title TEXT        the map's title instead of the source's (the selection is appended
                      when the source has more than one map)
  --region R0:R1,C0:C1  visible rows and columns (fractional cells); widened along one axis
                      so that square cells fill the area the whole map takes
  --stretch           cells take the area's aspect instead (the region fills all the space)
  --overview          open the grid of all layers x heads (click one to open it)

headless output (no window; exits when written)
  --screenshot FILE   PNG of the whole viewer
  --export FILE       PNG of the figure alone: map, token labels, colour bar
  --layout FILE       JSON: the heatmap's pixel rectangle and the value of every bin drawn
                      (describes --screenshot when given, else --export)
  --size WxH          image size (default 1280x800; also the window size)
  --measure-frames N  time N frames of scripted wheel zooms and drags (headless, no image
                      needed) and print the slowest, median and mean; --measure-json FILE too

other
  --device X          Vulkan device index or name substring (default: VKATTN_DEVICE, best)
  --validation        Khronos validation layer on
  --frames N          quit after N frames (smoke tests)
  --print-ready       window: print "ready" on stdout once the window shows its first frame
  --help              this text

Mouse: wheel zooms at the cursor, drag pans, double-click resets; hover shows the weight, both
tokens, the row's entropy and argmax.
)";
}

ViewerArgs parseArgs(const std::vector<std::string>& args) {
  ViewerArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw InvalidArgument(flag, "needs a value");
      return args[++i];
    };
    if (flag == "--help" || flag == "-h") {
      out.help = true;
    } else if (flag == "--source") {
      out.source.spec = value();
    } else if (flag == "--sentence" || flag == "--prompt") {
      out.sentence = value();
      out.sentenceGiven = true;
    } else if (flag == "--max-tokens") {
      out.source.maxTokens = parseInt(flag, value(), 0, 1 << 16);
    } else if (flag == "--tokens") {
      out.source.tokensFile = value();
    } else if (flag == "--row-tokens") {
      out.source.rowTokensFile = value();
    } else if (flag == "--col-tokens") {
      out.source.colTokensFile = value();
    } else if (flag == "--causal") {
      out.source.causal = true;
    } else if (flag == "--view") {
      out.view = value();
      if (out.view.empty()) throw InvalidArgument(flag, "is empty");
    } else if (flag == "--layer") {
      out.layer = parseInt(flag, value(), 0, 1 << 20);
    } else if (flag == "--head") {
      out.head = parseInt(flag, value(), 0, 1 << 20);
    } else if (flag == "--aggregate") {
      const std::string& v = value();
      if (v == "mean")
        out.aggregate = HeadMode::Mean;
      else if (v == "max")
        out.aggregate = HeadMode::Max;
      else
        throw InvalidArgument(flag, "expected mean or max, got '" + v + "'");
    } else if (flag == "--rollout") {
      out.rollout = true;
    } else if (flag == "--minus") {
      const auto parts = split(value(), ':');
      if (parts.size() != 2) throw InvalidArgument(flag, "expected LAYER:HEAD, e.g. 1:0");
      out.minus =
          MapChoice{parseInt(flag, parts[0], 0, 1 << 20), parseInt(flag, parts[1], 0, 1 << 20), HeadMode::Single};
    } else if (flag == "--hide") {
      for (const std::string& c : split(value(), ',')) out.hide.push_back(parseInt(flag, c, -1, 1 << 30));
    } else if (flag == "--colormap") {
      const std::string& v = value();
      auto map = colormapFromString(v);
      if (!map) throw InvalidArgument(flag, "expected viridis, magma, grey or diverging, got '" + v + "'");
      out.colormap = *map;
    } else if (flag == "--log") {
      out.scale = Scale::Log;
    } else if (flag == "--reduce") {
      const std::string& v = value();
      if (v == "max")
        out.reduction = Reduction::Max;
      else if (v == "mean")
        out.reduction = Reduction::Mean;
      else
        throw InvalidArgument(flag, "expected max or mean, got '" + v + "'");
    } else if (flag == "--title") {
      out.title = value();
    } else if (flag == "--region") {
      const auto axes = split(value(), ',');
      if (axes.size() != 2) throw InvalidArgument(flag, "expected R0:R1,C0:C1");
      const auto rows = split(axes[0], ':'), cols = split(axes[1], ':');
      if (rows.size() != 2 || cols.size() != 2) throw InvalidArgument(flag, "expected R0:R1,C0:C1");
      out.region = {parseNumber(flag, rows[0]), parseNumber(flag, rows[1]), parseNumber(flag, cols[0]),
                    parseNumber(flag, cols[1])};
      if (out.region.rowBegin < 0 || out.region.colBegin < 0 || out.region.whole())
        throw InvalidArgument(flag, "needs 0 <= R0 < R1 and 0 <= C0 < C1");
    } else if (flag == "--stretch") {
      out.stretch = true;
    } else if (flag == "--measure-frames") {
      out.measureFrames = static_cast<int>(parseInt(flag, value(), 1, 100000));
    } else if (flag == "--measure-json") {
      out.measureJson = value();
    } else if (flag == "--overview") {
      out.overview = true;
    } else if (flag == "--screenshot") {
      out.screenshot = value();
    } else if (flag == "--export") {
      out.exportPng = value();
    } else if (flag == "--layout") {
      out.layout = value();
    } else if (flag == "--size") {
      const std::string& v = value();
      const auto parts = split(v, 'x');
      if (parts.size() != 2) throw InvalidArgument(flag, "expected WxH, e.g. 1280x800, got '" + v + "'");
      out.width = static_cast<int>(parseInt(flag, parts[0], 64, 8192));
      out.height = static_cast<int>(parseInt(flag, parts[1], 64, 8192));
    } else if (flag == "--frames") {
      out.frames = static_cast<int>(parseInt(flag, value(), 1, 1 << 30));
    } else if (flag == "--device") {
      out.device = value();
    } else if (flag == "--validation") {
      out.validation = true;
    } else if (flag == "--print-ready") {
      out.printReady = true;
    } else {
      throw InvalidArgument(flag, "unknown option (see --help)");
    }
  }
  if (!out.measureJson.empty() && out.measureFrames == 0)
    throw InvalidArgument("--measure-json", "needs --measure-frames N");
  if (!out.layout.empty() && out.screenshot.empty() && out.exportPng.empty())
    throw InvalidArgument("--layout", "describes a headless image; add --screenshot or --export");
  if (out.head && out.aggregate != HeadMode::Single)
    throw InvalidArgument("--aggregate", "replaces --head; give one of them");
  if (!out.sentenceGiven && out.source.spec.rfind("gguf:", 0) == 0) out.sentence = kDefaultPrompt;
  return out;
}

}  // namespace vkattn::viewer
