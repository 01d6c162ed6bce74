// Push constants of the viewer's heatmap kernel, shared by heatmap_downsample.comp and the viewer
// (render/downsample.cpp). The viewer's own: it is a client of the runtime and dispatches the
// kernel itself through the public PipelineLibrary and Recorder.
#ifndef VKATTN_VIEWER_HEATMAP_PUSH_H
#define VKATTN_VIEWER_HEATMAP_PUSH_H

// Specialization constants and bindings of heatmap_downsample.comp, by name.
#define HEATMAP_SPEC_WORKGROUP_SIZE 0
#define HEATMAP_SPEC_LANES 1  // uint: lanes per output bin
#define HEATMAP_SPEC_MODE 2   // uint: the reduction (max, mean)
#define HEATMAP_BINDING_MAP 0
#define HEATMAP_BINDING_ROW_EDGES 1
#define HEATMAP_BINDING_COL_EDGES 2
#define HEATMAP_BINDING_OUT 3
#define HEATMAP_BINDING_COUNT 4

#ifdef __cplusplus
#include <cstdint>
namespace vkattn::viewer::pc {
using uint = std::uint32_t;
#endif

// heatmap_downsample.comp: bin (y, x) of the [outRows, outCols] output covers map rows
// [rowEdges[y], rowEdges[y + 1]) and columns [colEdges[x], colEdges[x + 1]).
struct HeatmapDownsampleParams {
  uint cols;     // row stride of the map, in elements
  uint offset;   // the map's first element in its buffer
  uint outRows;
  uint outCols;
};

#ifdef __cplusplus
}  // namespace vkattn::viewer::pc
#endif

#endif
