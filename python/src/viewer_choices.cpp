#include "viewer_choices.hpp"

#include <algorithm>

#include "input_checks.hpp"

namespace vkattn::python {
namespace {

// A str among `allowed` (None: empty), else TypeError / ValueError naming the keyword.
std::string oneOf(const py::object& value, const std::string& name, const std::vector<std::string>& allowed) {
  if (value.is_none()) return {};
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "'" : ", '") + a + "'";
  if (!py::isinstance<py::str>(value)) throw py::type_error("'" + name + "' must be one of " + list);
  const std::string text = value.cast<std::string>();
  if (std::find(allowed.begin(), allowed.end(), text) == allowed.end())
    throw py::value_error("'" + name + "' is '" + text + "'; expected one of " + list);
  return text;
}

// A layer or head of the maps: an int in [0, count), else an error saying how many there are.
std::optional<int64_t> index(const py::object& value, const std::string& name, int64_t count, const char* plural) {
  if (value.is_none()) return std::nullopt;
  if (PyBool_Check(value.ptr())) throw py::type_error("'" + name + "' must be an int, got bool");
  const int64_t i = intArgument(value, name, 0);
  if (i >= count)
    throw py::value_error("'" + name + "' is " + std::to_string(i) + "; attn has " + std::to_string(count) + " " +
                          (count == 1 ? name : std::string(plural)) + " (0 .. " + std::to_string(count - 1) + ")");
  return i;
}

}  // namespace

ViewChoices viewChoices(const AttentionMaps& maps, const py::object& layer, const py::object& head,
                        const py::object& heads, const py::object& reduce, const py::object& colormap, bool log,
                        bool stretch, bool causal, const py::object& title, const py::object& size) {
  ViewChoices c;
  c.layer = index(layer, "layer", maps.layers, "layers");
  c.head = index(head, "head", maps.heads, "heads");
  c.heads = oneOf(heads, "heads", {"mean", "max"});
  if (c.head && !c.heads.empty())
    throw py::value_error("give 'head' (one head) or 'heads' (mean or max of all), not both");
  c.reduce = oneOf(reduce, "reduce", {"max", "mean"});
  c.colormap = oneOf(colormap, "colormap", {"viridis", "magma", "grey", "gray", "diverging"});
  c.log = log;
  c.stretch = stretch;
  c.causal = causal;
  if (!title.is_none()) {
    if (!py::isinstance<py::str>(title)) throw py::type_error("'title' must be a str");
    c.title = utf8Text(title);
    if (c.title.find_first_of("\r\n") != std::string::npos) throw py::value_error("'title' contains a line break");
  }
  if (!size.is_none()) {
    if (py::isinstance<py::str>(size) || !py::isinstance<py::sequence>(size) || py::len(size) != 2)
      throw py::type_error("'size' must be (width, height)");
    const py::sequence wh = size;
    c.size = std::pair{static_cast<int>(intArgument(wh[0], "size", 64, 8192)),
                       static_cast<int>(intArgument(wh[1], "size", 64, 8192))};
  }
  return c;
}

std::pair<int, int> defaultSize(const AttentionMaps& maps, bool figure) {
  constexpr int kWidth = 1600, kHeight = 1000;
  if (!figure) return {kWidth, kHeight};  // the window: its control panel needs the height
  const double aspect = static_cast<double>(maps.cols) / static_cast<double>(maps.rows);
  // Room beside the map for the title, labels and colour bar, and the least that holds them.
  if (aspect > 1.6) return {kWidth, std::clamp(static_cast<int>(kWidth / aspect) + 300, 280, kHeight)};
  if (aspect < 1.0 / 1.6) return {std::clamp(static_cast<int>(kHeight * aspect) + 500, 480, kWidth), kHeight};
  return {kWidth, kHeight};
}

std::vector<std::string> viewerFlags(const ViewChoices& c, const AttentionMaps& maps, bool figure) {
  const auto [width, height] = c.size.value_or(defaultSize(maps, figure));
  std::vector<std::string> flags = {"--size", std::to_string(width) + "x" + std::to_string(height), "--title", c.title};
  if (c.layer) flags.insert(flags.end(), {"--layer", std::to_string(*c.layer)});
  if (c.head) flags.insert(flags.end(), {"--head", std::to_string(*c.head)});
  if (!c.heads.empty()) flags.insert(flags.end(), {"--aggregate", c.heads});
  if (!c.reduce.empty()) flags.insert(flags.end(), {"--reduce", c.reduce});
  if (!c.colormap.empty()) flags.insert(flags.end(), {"--colormap", c.colormap});
  if (c.log) flags.push_back("--log");
  if (c.stretch) flags.push_back("--stretch");
  if (c.causal) flags.push_back("--causal");
  return flags;
}

}  // namespace vkattn::python
