// Push constants, specialization constants and bindings of the viewer's map kernels
// (map_combine.comp, map_rows.comp, map_row_stats.comp), shared with the C++ that dispatches them
// (viewer/src/sources/device_maps.cpp). Maps are row-major f32 blocks at an element offset of a
// buffer bound whole.
#ifndef VKATTN_VIEWER_MAP_OPS_PUSH_H
#define VKATTN_VIEWER_MAP_OPS_PUSH_H

#define MAP_SPEC_WORKGROUP_SIZE 0
#define MAP_SPEC_MODE 1         // map_combine: MAP_COMBINE_*
#define MAP_SPEC_RESIDUAL 1     // map_rows: uint 0/1, rownorm(0.5 A + 0.5 I)
#define MAP_SPEC_HIDE 2         // map_rows: uint 0/1, zero the hidden columns
#define MAP_SPEC_RENORMALISE 3  // map_rows: uint 0/1, rescale the rest of each row to its former sum

#define MAP_COMBINE_ASSIGN 0    // acc = x * scale
#define MAP_COMBINE_ADD 1       // acc = (acc + x) * scale
#define MAP_COMBINE_MAX 2       // acc = max(acc, x) * scale
#define MAP_COMBINE_SUBTRACT 3  // acc = (acc - x) * scale

#define MAP_COMBINE_BINDING_ACC 0
#define MAP_COMBINE_BINDING_X 1
#define MAP_COMBINE_BINDING_COUNT 2

#define MAP_ROWS_BINDING_IN 0
#define MAP_ROWS_BINDING_OUT 1
#define MAP_ROWS_BINDING_HIDDEN 2
#define MAP_ROWS_BINDING_COUNT 3

#define MAP_STATS_BINDING_IN 0
#define MAP_STATS_BINDING_OUT 1
#define MAP_STATS_BINDING_COUNT 2
#define MAP_STATS_FIELDS 4  // per row: min, max, sum, count of values not >= 0

#ifdef __cplusplus
#include <cstdint>
namespace vkattn::viewer::pc {
using uint = std::uint32_t;
#endif

// map_combine.comp: acc[accOffset + i] = op(acc[accOffset + i], x[xOffset + i]) * scale, i < count.
struct MapCombineParams {
  uint count;
  uint accOffset;
  uint xOffset;
  float scale;
};

// map_rows.comp and map_row_stats.comp: a [rows, cols] map at element inOffset of the input.
struct MapRowsParams {
  uint rows;
  uint cols;
  uint inOffset;
};

#ifdef __cplusplus
}  // namespace vkattn::viewer::pc
#endif

#endif
