// Push constants of the viewer's heatmap kernel, shared by heatmap_downsample.comp and the viewer.
// Apart from push_constants.h because the viewer, a client of the runtime, dispatches it itself
// through the public PipelineLibrary and Recorder; no runtime op uses it.
#ifndef VKATTN_HEATMAP_PUSH_H
#define VKATTN_HEATMAP_PUSH_H

#ifdef __cplusplus
#include <cstdint>
namespace vkattn::pc {
using uint = std::uint32_t;
#endif

// heatmap_downsample.comp: bin (y, x) of the [outRows, outCols] output covers map rows
// [rowEdges[y], rowEdges[y + 1]) and columns [colEdges[x], colEdges[x + 1]).
struct HeatmapDownsampleParams {
  uint cols;     // row stride of the map, in elements
  uint outRows;
  uint outCols;
};

#ifdef __cplusplus
}  // namespace vkattn::pc
#endif

#endif
