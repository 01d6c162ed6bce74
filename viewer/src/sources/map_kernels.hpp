// The selection's map operations as device ops on DeviceMaps: head aggregates, differences,
// rollout's residual step and product, hiding columns, and the per-row statistics the host reads
// instead of the map. Each mirrors a function of attention_math.hpp, its double-precision
// reference (tolerances in the kernels' opening comments). Dispatched through the context's
// PipelineLibrary and Recorder; the results stay on the device.
#pragma once

#include <cstdint>
#include <vector>

#include "sources/attention_math.hpp"
#include "sources/device_map.hpp"
#include "vkattn/core/context.hpp"

namespace vkattn::viewer {

// Elementwise mean or max of the maps (one size), as aggregateHeads over a layer's heads.
DeviceMap combineMaps(Context& ctx, const std::vector<DeviceMap>& maps, Aggregation how);
// a - b, as difference(); InvalidArgument("difference") when the shapes differ.
DeviceMap subtractMaps(Context& ctx, const DeviceMap& a, const DeviceMap& b);
// rollout(): rownorm(0.5 A + 0.5 I) of each layer, multiplied from layer 0 through `last`.
DeviceMap rolloutMaps(Context& ctx, const std::vector<DeviceMap>& layers, int64_t last);
// hideColumns(): hidden columns zeroed, rows renormalised when asked.
DeviceMap hideMapColumns(Context& ctx, const DeviceMap& map, const std::vector<int64_t>& hidden, bool renormalise);

// What the host needs to know of a map without reading it.
struct MapSummary {
  ValueRange range;          // as valueRange()
  bool probability = false;  // as isProbabilityMap()
};
MapSummary summarise(Context& ctx, const DeviceMap& map);

}  // namespace vkattn::viewer
