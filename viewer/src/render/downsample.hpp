// Reducing a map to the bins a view draws (max, mean or largest magnitude over the cells each
// bin covers): the bin edges, a CPU reference, and the GPU path that dispatches
// heatmap_downsample.comp through the context's PipelineLibrary and Recorder.
#pragma once

#include <cstdint>
#include <vector>

#include "sources/attention_math.hpp"
#include "sources/device_map.hpp"
#include "vkattn/core/context.hpp"

namespace vkattn::viewer {

enum class Reduction { Max, Mean, MaxMagnitude };
const char* toString(Reduction how) noexcept;  // "max", "mean", "max-magnitude"

// bins + 1 increasing edges splitting [begin, end) into `bins` runs whose lengths differ by at
// most one: edge i = begin + floor(i * (end - begin) / bins). Needs 1 <= bins <= end - begin.
std::vector<uint32_t> binEdges(int64_t begin, int64_t end, int64_t bins);

// The reference: bin (y, x) reduces map rows [rowEdges[y], rowEdges[y+1]) x columns
// [colEdges[x], colEdges[x+1]) in double precision.
Matrix downsampleReference(const Matrix& map, const std::vector<uint32_t>& rowEdges,
                           const std::vector<uint32_t>& colEdges, Reduction how);

// Reduces any region of one device map (reading it where it is: nothing is uploaded), so that
// panning and zooming only cost the reduction and a small download. Edges of one cell each read
// cells as they are (the view of a region with fewer cells than pixels, a hovered row).
class GpuDownsampler {
 public:
  explicit GpuDownsampler(Context& ctx) : m_ctx(ctx) {}

  // The map must live on ctx's device.
  void setMap(const DeviceMap& map);
  void setMap(const Matrix& map) { setMap(uploadMap(m_ctx, map)); }
  bool hasMap() const noexcept { return !m_map.empty(); }

  // `lanes` (a power of two up to 64) invocations share a bin; 0 picks the fewest that keep each
  // under the device's loop iteration limit. Throws InvalidArgument for edges outside the map.
  Matrix run(const std::vector<uint32_t>& rowEdges, const std::vector<uint32_t>& colEdges, Reduction how,
             uint32_t lanes = 0);

  // Invocations per bin for bins of up to `cells` cells on this device.
  uint32_t lanesFor(uint64_t cells) const;

 private:
  Context& m_ctx;
  DeviceMap m_map;
};

}  // namespace vkattn::viewer
