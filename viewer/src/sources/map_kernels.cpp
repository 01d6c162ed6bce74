#include "sources/map_kernels.hpp"

#include <map_ops_push.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "spirv/viewer_shaders.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/core/recorder.hpp"
#include "vkattn/ops/linear.hpp"

namespace vkattn::viewer {
namespace {

constexpr uint32_t kWorkgroupSize = 64;

uint32_t word(int64_t value, const char* what) {
  if (value < 0 || value > std::numeric_limits<uint32_t>::max())
    throw Unsupported(std::string(what) + " " + std::to_string(value) + " passes 2^32");
  return static_cast<uint32_t>(value);
}

const Pipeline& pipeline(Context& ctx, const char* shader, uint32_t bindings, uint32_t pushBytes,
                         const SpecConstants& constants) {
  return ctx.pipelines().get({.shader = std::string("viewer/") + shader,
                              .bindings = bindings,
                              .pushConstantBytes = pushBytes,
                              .constants = constants,
                              .code = shaders::code(shader)});
}

void requireMap(const char* name, const DeviceMap& map) {
  if (map.empty()) throw InvalidArgument(name, "is empty");
}

void requireSameShape(const char* name, const DeviceMap& a, const DeviceMap& b) {
  if (a.rows != b.rows || a.cols != b.cols)
    throw InvalidArgument(name, "maps of " + std::to_string(a.rows) + " x " + std::to_string(a.cols) + " and " +
                                    std::to_string(b.rows) + " x " + std::to_string(b.cols) + " do not match");
}

// acc = op(acc, x) * scale over the map's cells.
void combineInto(Context& ctx, const DeviceMap& acc, const DeviceMap& x, uint32_t mode, float scale) {
  pc::MapCombineParams p{};
  p.count = word(acc.count(), "map cells");
  p.accOffset = word(acc.offset, "map offset");
  p.xOffset = word(x.offset, "map offset");
  p.scale = scale;
  SpecConstants constants;
  constants.set(MAP_SPEC_WORKGROUP_SIZE, kWorkgroupSize).set(MAP_SPEC_MODE, mode);
  ctx.recorder().dispatch(pipeline(ctx, "map_combine", MAP_COMBINE_BINDING_COUNT, sizeof(p), constants),
                          {{MAP_COMBINE_BINDING_ACC, &acc.buffer()}, {MAP_COMBINE_BINDING_X, &x.buffer()}}, p,
                          groupsFor(ctx.device(), static_cast<uint64_t>(acc.count()), kWorkgroupSize));
  ctx.flush();
}

DeviceMap blank(Context& ctx, int64_t rows, int64_t cols) {
  return ownMap(ctx.tensor({rows, cols}), rows, cols);
}

// map_rows.comp over `map` into a new map.
DeviceMap rowsKernel(Context& ctx, const DeviceMap& map, bool residual, const std::vector<int64_t>& hidden,
                     bool renormalise) {
  const bool hide = !hidden.empty();
  std::vector<int32_t> flags(static_cast<std::size_t>(map.cols), 0);
  for (int64_t c : hidden)
    if (c >= 0 && c < map.cols) flags[static_cast<std::size_t>(c)] = 1;
  const Tensor hiddenColumns = Tensor::fromHostInt(ctx.device(), {map.cols}, flags);
  DeviceMap out = blank(ctx, map.rows, map.cols);
  pc::MapRowsParams p{};
  p.rows = word(map.rows, "map rows");
  p.cols = word(map.cols, "map columns");
  p.inOffset = word(map.offset, "map offset");
  word(map.offset + map.count(), "map end");
  SpecConstants constants;
  constants.set(MAP_SPEC_WORKGROUP_SIZE, kWorkgroupSize)
      .set(MAP_SPEC_RESIDUAL, residual ? 1u : 0u)
      .set(MAP_SPEC_HIDE, hide ? 1u : 0u)
      .set(MAP_SPEC_RENORMALISE, hide && renormalise ? 1u : 0u);
  ctx.recorder().dispatch(pipeline(ctx, "map_rows", MAP_ROWS_BINDING_COUNT, sizeof(p), constants),
                          {{MAP_ROWS_BINDING_IN, &map.buffer()},
                           {MAP_ROWS_BINDING_OUT, &out.buffer()},
                           {MAP_ROWS_BINDING_HIDDEN, &hiddenColumns.buffer()}},
                          p, groupsFor(ctx.device(), static_cast<uint64_t>(map.rows)));
  ctx.flush();  // the hidden-column flags are freed on return
  return out;
}

}  // namespace

DeviceMap combineMaps(Context& ctx, const std::vector<DeviceMap>& maps, Aggregation how) {
  if (maps.empty()) throw InvalidArgument("maps", "holds no map to combine");
  for (const DeviceMap& m : maps) {
    requireMap("maps", m);
    requireSameShape("maps", maps.front(), m);
  }
  DeviceMap out = blank(ctx, maps.front().rows, maps.front().cols);
  const auto count = static_cast<float>(maps.size());
  const bool mean = how == Aggregation::Mean;
  Batch run(ctx);
  combineInto(ctx, out, maps.front(), MAP_COMBINE_ASSIGN, 1.0f);
  for (std::size_t i = 1; i < maps.size(); ++i) {
    const bool last = i + 1 == maps.size();
    combineInto(ctx, out, maps[i], mean ? MAP_COMBINE_ADD : MAP_COMBINE_MAX, mean && last ? 1.0f / count : 1.0f);
  }
  run.submit();
  return out;
}

DeviceMap subtractMaps(Context& ctx, const DeviceMap& a, const DeviceMap& b) {
  requireMap("a", a);
  requireMap("b", b);
  requireSameShape("difference", a, b);
  DeviceMap out = blank(ctx, a.rows, a.cols);
  Batch run(ctx);
  combineInto(ctx, out, a, MAP_COMBINE_ASSIGN, 1.0f);
  combineInto(ctx, out, b, MAP_COMBINE_SUBTRACT, 1.0f);
  run.submit();
  return out;
}

DeviceMap rolloutMaps(Context& ctx, const std::vector<DeviceMap>& layers, int64_t last) {
  std::vector<std::pair<int64_t, int64_t>> shapes;
  for (const DeviceMap& m : layers) shapes.emplace_back(m.rows, m.cols);
  checkRollout(shapes, last);
  DeviceMap result = rowsKernel(ctx, layers[0], true, {}, false);
  for (int64_t l = 1; l <= last; ++l) {
    const DeviceMap layer = rowsKernel(ctx, layers[static_cast<std::size_t>(l)], true, {}, false);
    DeviceMap product = blank(ctx, result.rows, result.cols);
    matmul(ctx, layer.view(), result.view(), product.view());
    result = std::move(product);
  }
  return result;
}

DeviceMap hideMapColumns(Context& ctx, const DeviceMap& map, const std::vector<int64_t>& hidden, bool renormalise) {
  requireMap("map", map);
  if (hidden.empty()) return map;
  return rowsKernel(ctx, map, false, hidden, renormalise);
}

MapSummary summarise(Context& ctx, const DeviceMap& map) {
  MapSummary summary;
  if (map.empty()) return summary;
  Tensor stats = ctx.tensor({map.rows, MAP_STATS_FIELDS});
  pc::MapRowsParams p{};
  p.rows = word(map.rows, "map rows");
  p.cols = word(map.cols, "map columns");
  p.inOffset = word(map.offset, "map offset");
  SpecConstants constants;
  constants.set(MAP_SPEC_WORKGROUP_SIZE, kWorkgroupSize);
  ctx.recorder().dispatch(pipeline(ctx, "map_row_stats", MAP_STATS_BINDING_COUNT, sizeof(p), constants),
                          {{MAP_STATS_BINDING_IN, &map.buffer()}, {MAP_STATS_BINDING_OUT, &stats.buffer()}}, p,
                          groupsFor(ctx.device(), static_cast<uint64_t>(map.rows)));
  ctx.flush();
  const std::vector<float> rows = stats.download();
  summary.range = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
  summary.probability = true;
  for (int64_t r = 0; r < map.rows; ++r) {
    const float* s = rows.data() + r * MAP_STATS_FIELDS;
    summary.range.min = std::min(summary.range.min, s[0]);
    summary.range.max = std::max(summary.range.max, s[1]);
    // As isProbabilityMap: every value >= 0, each row summing to 1 (within 1e-3) or to 0.
    if (s[3] != 0.0f || (std::fabs(s[2] - 1.0) > 1e-3 && s[2] != 0.0f)) summary.probability = false;
  }
  return summary;
}

}  // namespace vkattn::viewer
