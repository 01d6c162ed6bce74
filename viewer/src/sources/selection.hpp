// What the user picked (kind, layer, head or aggregate, rollout, A - B, hidden columns) and the
// one map that picking shows, with its labels and title. The map is made on the device from the
// source's device maps (sources/map_kernels.hpp); the host reads only its range and whether it
// holds probabilities.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sources/attention_math.hpp"
#include "sources/attention_source.hpp"
#include "sources/device_map.hpp"
#include "vkattn/core/context.hpp"

namespace vkattn::viewer {

enum class HeadMode { Single, Mean, Max };

// One side of the picture: a layer and a head, or an aggregate over the layer's heads.
struct MapChoice {
  int64_t layer = 0;
  int64_t head = 0;
  HeadMode mode = HeadMode::Single;
};

struct Selection {
  std::size_t kind = 0;  // index into AttentionSet::kinds
  MapChoice a;
  // Square (self-attention) kinds: attention rollout through a.layer (each layer's heads reduced
  // by a.mode, mean when Single) instead of one layer.
  bool rollout = false;
  // Show a - b on a diverging scale.
  bool difference = false;
  MapChoice b{0, 1, HeadMode::Single};
  // Columns hidden (sink tokens), rows renormalised.
  std::vector<int64_t> hiddenColumns;
};

struct DisplayMap {
  DeviceMap values;
  ValueRange range;  // of values
  std::vector<std::string> rowTokens;
  std::vector<std::string> colTokens;
  std::string title;
  bool signedValues = false;           // a difference: draw with a diverging colormap
  bool causal = false;                 // cells above the diagonal are masked, drawn apart from zeros
  std::vector<int64_t> hiddenColumns;  // drawn apart, their values zeroed
  std::vector<int64_t> unknownRows, unknownCols;
  // How the values relate to the source's: probability maps are renormalised over the columns
  // left after hiding; anything else is drawn as given, every row alike.
  bool probability = true;
  bool renormalised = false;
  std::string normalisation;  // one line saying which, for the UI and the layout record
};

// "layer 1, head 2", "layer 0, mean of heads", "rollout through layer 1 (...)"; without the layer
// when `nameLayer` is false (a kind of one layer).
std::string describe(const MapChoice& choice, bool rollout, bool nameLayer = true);

// The map of one choice within a kind, on ctx's device. Throws InvalidArgument naming "layer" or "head".
DeviceMap choiceMap(Context& ctx, const AttentionKind& kind, const MapChoice& choice, bool rollout);

// Everything the heatmap draws for `selection`. Its title is the kind's, then the selection when
// the kind has more than one map, then what is hidden. Throws InvalidArgument naming what is out of
// range ("view", "layer", "head", "rollout").
DisplayMap buildDisplayMap(Context& ctx, const AttentionSet& set, const Selection& selection);

// Clamps layers, heads and the kind into range after the source changed (a new sentence can
// change nothing here, but a different source can).
void clampSelection(const AttentionSet& set, Selection& selection);

}  // namespace vkattn::viewer
