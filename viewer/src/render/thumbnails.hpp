// The overview grid: every layer x head of the current kind as a small heatmap, reduced on the
// GPU to thumbnail resolution once per source or setting change. A click opens that head.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "render/colormap.hpp"
#include "render/downsample.hpp"
#include "sources/attention_source.hpp"
#include "sources/selection.hpp"

namespace vkattn::viewer {

class Thumbnails {
 public:
  explicit Thumbnails(Context& ctx) : m_gpu(ctx) {}

  // Drops the cached reductions (new source data, other kind, other hidden columns).
  void invalidate() { m_maps.clear(); }

  // Draws the grid inside the current ImGui window; returns the (layer, head) clicked, if any.
  std::optional<MapChoice> draw(const AttentionKind& kind, const std::vector<int64_t>& hidden, Colormap colormap,
                                const MapChoice& current, float cellPixels);

 private:
  void build(const AttentionKind& kind, const std::vector<int64_t>& hidden, int64_t bins);

  GpuDownsampler m_gpu;
  std::vector<Matrix> m_maps;  // layer-major: [layer * heads + head]
  int64_t m_bins = 0;
};

}  // namespace vkattn::viewer
