#include "render/downsample.hpp"

#include <heatmap_push.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>

#include "spirv/viewer_shaders.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/core/recorder.hpp"

namespace vkattn::viewer {
namespace {

constexpr uint32_t kWorkgroupSize = 64;

void checkEdges(const char* name, const std::vector<uint32_t>& edges, int64_t limit) {
  if (edges.size() < 2) throw InvalidArgument(name, "needs at least two edges (one bin)");
  for (std::size_t i = 1; i < edges.size(); ++i)
    if (edges[i] <= edges[i - 1])
      throw InvalidArgument(name, "edges must increase; edge " + std::to_string(i) + " is " + std::to_string(edges[i]) +
                                      " after " + std::to_string(edges[i - 1]));
  if (edges.back() > limit)
    throw InvalidArgument(name,
                          "last edge " + std::to_string(edges.back()) + " passes the map's " + std::to_string(limit));
}

uint64_t largestBin(const std::vector<uint32_t>& rowEdges, const std::vector<uint32_t>& colEdges) {
  uint64_t rows = 0, cols = 0;
  for (std::size_t i = 1; i < rowEdges.size(); ++i) rows = std::max<uint64_t>(rows, rowEdges[i] - rowEdges[i - 1]);
  for (std::size_t i = 1; i < colEdges.size(); ++i) cols = std::max<uint64_t>(cols, colEdges[i] - colEdges[i - 1]);
  return rows * cols;
}

}  // namespace

const char* toString(Reduction how) noexcept {
  // Indexed by the enum, whose values are the kernel's MODE numbers.
  constexpr const char* kNames[] = {"max", "mean", "max-magnitude"};
  const auto index = static_cast<std::size_t>(how);
  return index < std::size(kNames) ? kNames[index] : "?";
}

std::vector<uint32_t> binEdges(int64_t begin, int64_t end, int64_t bins) {
  if (bins < 1 || bins > end - begin)
    throw InvalidArgument("bins", std::to_string(bins) + " bins cannot split [" + std::to_string(begin) + ", " +
                                      std::to_string(end) + ")");
  std::vector<uint32_t> edges(static_cast<std::size_t>(bins + 1));
  const int64_t length = end - begin;
  for (int64_t i = 0; i <= bins; ++i)
    edges[static_cast<std::size_t>(i)] = static_cast<uint32_t>(begin + i * length / bins);
  return edges;
}

Matrix downsampleReference(const Matrix& map, const std::vector<uint32_t>& rowEdges,
                           const std::vector<uint32_t>& colEdges, Reduction how) {
  checkEdges("rowEdges", rowEdges, map.rows);
  checkEdges("colEdges", colEdges, map.cols);
  Matrix out(static_cast<int64_t>(rowEdges.size() - 1), static_cast<int64_t>(colEdges.size() - 1));
  for (int64_t y = 0; y < out.rows; ++y)
    for (int64_t x = 0; x < out.cols; ++x) {
      double acc = how == Reduction::Mean ? 0.0 : -std::numeric_limits<double>::infinity();
      for (uint32_t r = rowEdges[y]; r < rowEdges[y + 1]; ++r)
        for (uint32_t c = colEdges[x]; c < colEdges[x + 1]; ++c) {
          const double v = map.at(r, c);
          if (how == Reduction::Mean)
            acc += v;
          else if (how == Reduction::Max)
            acc = std::max(acc, v);
          else if (std::isinf(acc) || std::fabs(v) > std::fabs(acc) || (std::fabs(v) == std::fabs(acc) && v > acc))
            acc = v;
        }
      if (how == Reduction::Mean)
        acc /= static_cast<double>(rowEdges[y + 1] - rowEdges[y]) * (colEdges[x + 1] - colEdges[x]);
      out.at(y, x) = static_cast<float>(acc);
    }
  return out;
}

void GpuDownsampler::setMap(const DeviceMap& map) {
  if (map.empty()) throw InvalidArgument("map", "is empty");
  if (map.offset + map.count() > std::numeric_limits<uint32_t>::max())
    throw Unsupported("map: " + std::to_string(map.offset + map.count()) + " elements pass 2^32");
  m_map = map;
}

uint32_t GpuDownsampler::lanesFor(uint64_t cells) const {
  const uint32_t limit = m_ctx.info().loopIterationLimit;
  // A lane's loop stays well inside the limit; on GPUs also keep a bin's loop short so that big
  // bins do not serialise on one invocation.
  const uint64_t budget = limit ? limit - limit / 16 : 4096;
  uint32_t lanes = 1;
  while (lanes < kWorkgroupSize && (cells + lanes - 1) / lanes > budget) lanes *= 2;
  if ((cells + lanes - 1) / lanes > budget && limit)
    throw Unsupported("bins of " + std::to_string(cells) + " cells are more than " + m_ctx.info().name +
                      " can reduce; draw the map larger or zoom in");
  return lanes;
}

Matrix GpuDownsampler::run(const std::vector<uint32_t>& rowEdges, const std::vector<uint32_t>& colEdges, Reduction how,
                           uint32_t lanes) {
  if (!hasMap()) throw InvalidArgument("map", "no map was set");
  checkEdges("rowEdges", rowEdges, m_map.rows);
  checkEdges("colEdges", colEdges, m_map.cols);
  if (lanes == 0) lanes = lanesFor(largestBin(rowEdges, colEdges));
  if (lanes > kWorkgroupSize || (lanes & (lanes - 1)) != 0)
    throw InvalidArgument("lanes", std::to_string(lanes) + " is not a power of two up to 64");

  const std::vector<int32_t> rows(rowEdges.begin(), rowEdges.end()), cols(colEdges.begin(), colEdges.end());
  Tensor rowTensor = Tensor::fromHostInt(m_ctx.device(), {static_cast<int64_t>(rows.size())}, rows);
  Tensor colTensor = Tensor::fromHostInt(m_ctx.device(), {static_cast<int64_t>(cols.size())}, cols);
  Matrix result(static_cast<int64_t>(rows.size() - 1), static_cast<int64_t>(cols.size() - 1));
  Tensor out = m_ctx.tensor({result.rows, result.cols});

  pc::HeatmapDownsampleParams p{};
  p.cols = static_cast<uint32_t>(m_map.cols);
  p.offset = static_cast<uint32_t>(m_map.offset);
  p.outRows = static_cast<uint32_t>(result.rows);
  p.outCols = static_cast<uint32_t>(result.cols);
  SpecConstants constants;
  constants.set(HEATMAP_SPEC_WORKGROUP_SIZE, kWorkgroupSize)
      .set(HEATMAP_SPEC_LANES, lanes)
      .set(HEATMAP_SPEC_MODE, static_cast<uint32_t>(how));
  const Pipeline& pipeline = m_ctx.pipelines().get({.shader = "viewer/heatmap_downsample",
                                                    .bindings = HEATMAP_BINDING_COUNT,
                                                    .pushConstantBytes = sizeof(pc::HeatmapDownsampleParams),
                                                    .constants = constants,
                                                    .code = shaders::code("heatmap_downsample")});
  const uint64_t bins = static_cast<uint64_t>(result.rows) * static_cast<uint64_t>(result.cols);
  m_ctx.recorder().dispatch(pipeline,
                            {{HEATMAP_BINDING_MAP, &m_map.buffer()},
                             {HEATMAP_BINDING_ROW_EDGES, &rowTensor.buffer()},
                             {HEATMAP_BINDING_COL_EDGES, &colTensor.buffer()},
                             {HEATMAP_BINDING_OUT, &out.buffer()}},
                            p, groupsFor(m_ctx.device(), bins, kWorkgroupSize / lanes));
  m_ctx.flush();
  result.values = out.download();
  return result;
}

}  // namespace vkattn::viewer
