// What view() shows, as its keyword arguments give it: the viewer's own choices (layer, head or
// an aggregate over heads, bin reduction, colour map, log scale, stretched cells, title, size),
// checked against the maps they apply to and turned into vkattn-viewer's flags, the same for the
// window and for a PNG.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attention_maps.hpp"

namespace vkattn::python {

namespace py = pybind11;

struct ViewChoices {
  std::optional<int64_t> layer;
  std::optional<int64_t> head;
  std::string heads;     // "mean" or "max" over the layer's heads; empty: one head
  std::string reduce;    // "max" or "mean" for bins of several cells; empty: the viewer's (max)
  std::string colormap;  // empty: the viewer's (viridis)
  bool log = false;
  bool stretch = false;
  bool causal = false;                      // the maps are causal: the cells past the diagonal drawn as masked
  std::string title;                        // empty: none for a single map, the selection alone for several
  std::optional<std::pair<int, int>> size;  // empty: defaultSize()
};

// The keyword arguments, checked: TypeError or ValueError naming the keyword (a layer or head out
// of range names the maps' count).
ViewChoices viewChoices(const AttentionMaps& maps, const py::object& layer, const py::object& head,
                        const py::object& heads, const py::object& reduce, const py::object& colormap, bool log,
                        bool stretch, bool causal, const py::object& title, const py::object& size);

// The size of a window or figure when none is given: 1600 x 1000, and for a figure of a map much
// wider than tall (or taller than wide) less of the short side, so that a strip is not drawn on
// mostly blank paper.
std::pair<int, int> defaultSize(const AttentionMaps& maps, bool figure);

// The flags that show them (--size from choices.size, else defaultSize).
std::vector<std::string> viewerFlags(const ViewChoices& choices, const AttentionMaps& maps, bool figure);

}  // namespace vkattn::python
