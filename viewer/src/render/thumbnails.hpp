// The overview grid: every layer x head of the current kind as a small heatmap, its hidden columns
// applied and reduced to thumbnail resolution on the device once per source or setting change.
// A click opens that head.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "render/bin_images.hpp"
#include "render/colormap.hpp"
#include "render/downsample.hpp"
#include "sources/attention_source.hpp"
#include "sources/selection.hpp"

namespace vkattn::viewer {

class Thumbnails {
 public:
  // The thumbnails are drawn as bin images added to `images`.
  Thumbnails(Context& ctx, BinImages& images) : m_ctx(ctx), m_gpu(ctx), m_images(images) {}

  // Drops the cached reductions (new source data, other kind, other hidden columns).
  void invalidate() { m_maps.clear(); }

  // Draws the grid inside the current ImGui window; returns the (layer, head) clicked, if any.
  std::optional<MapChoice> draw(const AttentionKind& kind, const std::vector<int64_t>& hidden, Colormap colormap,
                                const MapChoice& current, float cellPixels);

 private:
  void build(const AttentionKind& kind, const std::vector<int64_t>& hidden, int64_t bins);

  Context& m_ctx;
  GpuDownsampler m_gpu;
  BinImages& m_images;
  std::vector<Matrix> m_maps;  // layer-major: [layer * heads + head]
  int64_t m_bins = 0;
};

}  // namespace vkattn::viewer
