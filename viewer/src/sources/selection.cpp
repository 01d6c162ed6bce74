#include "sources/selection.hpp"

#include <algorithm>

#include "sources/map_kernels.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

void checkLayer(const AttentionKind& kind, int64_t layer) {
  if (layer < 0 || layer >= static_cast<int64_t>(kind.layers.size()))
    throw InvalidArgument("layer", std::to_string(layer) + " is out of range; '" + kind.id + "' has " +
                                       std::to_string(kind.layers.size()) + " layers (0.." +
                                       std::to_string(static_cast<int64_t>(kind.layers.size()) - 1) + ")");
}

DeviceMap headOrAggregate(Context& ctx, const std::vector<DeviceMap>& layer, const MapChoice& choice) {
  switch (choice.mode) {
    case HeadMode::Mean:
      return combineMaps(ctx, layer, Aggregation::Mean);
    case HeadMode::Max:
      return combineMaps(ctx, layer, Aggregation::Max);
    case HeadMode::Single:
      break;
  }
  if (choice.head < 0 || choice.head >= static_cast<int64_t>(layer.size()))
    throw InvalidArgument("head", std::to_string(choice.head) + " is out of range; the layer has " +
                                      std::to_string(layer.size()) + " heads");
  return layer[static_cast<std::size_t>(choice.head)];
}

}  // namespace

std::string describe(const MapChoice& choice, bool rollout, bool nameLayer) {
  std::string heads = choice.mode == HeadMode::Mean  ? "mean of heads"
                      : choice.mode == HeadMode::Max ? "max of heads"
                      : rollout                      ? "mean of heads"
                                                     : "head " + std::to_string(choice.head);
  if (rollout) return "rollout through layer " + std::to_string(choice.layer) + " (" + heads + ")";
  return nameLayer ? "layer " + std::to_string(choice.layer) + ", " + heads : heads;
}

DeviceMap choiceMap(Context& ctx, const AttentionKind& kind, const MapChoice& choice, bool rollout) {
  checkLayer(kind, choice.layer);
  if (!rollout) return headOrAggregate(ctx, kind.layers[static_cast<std::size_t>(choice.layer)], choice);
  if (!kind.square())
    throw InvalidArgument("rollout", "needs square self-attention; '" + kind.id + "' is " +
                                         std::to_string(kind.rows()) + " x " + std::to_string(kind.cols()));
  MapChoice perLayer = choice;
  if (perLayer.mode == HeadMode::Single) perLayer.mode = HeadMode::Mean;  // rollout reads whole layers
  std::vector<DeviceMap> layers;
  for (int64_t l = 0; l <= choice.layer; ++l)
    layers.push_back(headOrAggregate(ctx, kind.layers[static_cast<std::size_t>(l)], perLayer));
  return rolloutMaps(ctx, layers, choice.layer);
}

namespace {

std::string columnList(const std::vector<int64_t>& columns, const std::vector<std::string>& tokens) {
  std::vector<int64_t> sorted = columns;
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (int64_t c : sorted) {
    if (!out.empty()) out += ", ";
    out += std::to_string(c);
    if (c < static_cast<int64_t>(tokens.size())) out += " '" + tokens[static_cast<std::size_t>(c)] + "'";
  }
  return out;
}

}  // namespace

DisplayMap buildDisplayMap(Context& ctx, const AttentionSet& set, const Selection& selection) {
  if (selection.kind >= set.kinds.size())
    throw InvalidArgument("view", "index " + std::to_string(selection.kind) + " is out of range");
  const AttentionKind& kind = set.kinds[selection.kind];
  DisplayMap map;
  map.rowTokens = kind.rowTokens;
  map.colTokens = kind.colTokens;
  map.causal = kind.causal;
  map.unknownRows = kind.unknownRows;
  map.unknownCols = kind.unknownCols;
  for (int64_t c : selection.hiddenColumns)
    if (c >= 0 && c < kind.cols()) map.hiddenColumns.push_back(c);
  std::sort(map.hiddenColumns.begin(), map.hiddenColumns.end());
  map.hiddenColumns.erase(std::unique(map.hiddenColumns.begin(), map.hiddenColumns.end()), map.hiddenColumns.end());

  // One rule for every row: a map renormalises only when it is a probability map as a whole.
  const DeviceMap a = choiceMap(ctx, kind, selection.a, selection.rollout);
  const MapSummary summary = summarise(ctx, a);
  map.probability = summary.probability;
  const bool hiding = !map.hiddenColumns.empty();
  map.renormalised = hiding && map.probability;
  map.values = hideMapColumns(ctx, a, map.hiddenColumns, map.renormalised);
  // The selection is named as far as there is a choice to name: a kind of one layer names the
  // head alone, one of one layer and one head carries its own title alone (or none).
  const bool oneLayer = kind.layers.size() == 1;
  const bool oneMap = oneLayer && kind.heads() == 1 && !selection.rollout && !selection.difference;
  map.title = kind.title;
  if (!oneMap) map.title += (map.title.empty() ? "" : " | ") + describe(selection.a, selection.rollout, !oneLayer);
  if (selection.difference) {
    const DeviceMap bRaw = choiceMap(ctx, kind, selection.b, selection.rollout);
    const DeviceMap b = hideMapColumns(ctx, bRaw, map.hiddenColumns, map.renormalised);
    map.values = subtractMaps(ctx, map.values, b);
    map.title += "  minus  " + describe(selection.b, selection.rollout, !oneLayer);
    map.signedValues = true;
  }
  if (hiding) {
    const std::string list = columnList(map.hiddenColumns, map.colTokens);
    map.title += (map.title.empty() ? "hidden: " : " | hidden: ") + list +
                 (map.renormalised ? " (rows renormalised)" : " (values as given)");
  }
  map.range = hiding || selection.difference ? summarise(ctx, map.values).range : summary.range;
  if (!map.probability)
    map.normalisation = "values as given: rows are not probability distributions, so no row is rescaled";
  else if (map.renormalised)
    map.normalisation = "rows renormalised to their former sums over the columns left";
  else
    map.normalisation = "attention probabilities, as computed";
  return map;
}

void clampSelection(const AttentionSet& set, Selection& selection) {
  if (set.kinds.empty()) return;
  selection.kind = std::min(selection.kind, set.kinds.size() - 1);
  const AttentionKind& kind = set.kinds[selection.kind];
  const int64_t layers = std::max<int64_t>(1, static_cast<int64_t>(kind.layers.size()));
  const int64_t heads = std::max<int64_t>(1, kind.heads());
  for (MapChoice* c : {&selection.a, &selection.b}) {
    c->layer = std::clamp<int64_t>(c->layer, 0, layers - 1);
    c->head = std::clamp<int64_t>(c->head, 0, heads - 1);
  }
  if (!kind.square()) selection.rollout = false;
  std::erase_if(selection.hiddenColumns, [&](int64_t c) { return c < 0 || c >= kind.cols(); });
}

}  // namespace vkattn::viewer
