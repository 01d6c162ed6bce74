#include "render/thumbnails.hpp"

#include <algorithm>
#include <string>

#include "sources/map_kernels.hpp"

namespace vkattn::viewer {

void Thumbnails::build(const AttentionKind& kind, const std::vector<int64_t>& hidden, int64_t bins) {
  m_maps.clear();
  m_bins = bins;
  for (const std::vector<DeviceMap>& layer : kind.layers)
    for (const DeviceMap& head : layer) {
      // Hidden columns, the reduction and the range on the device: only the thumbnail comes back.
      const bool probability = hidden.empty() || summarise(m_ctx, head).probability;
      const DeviceMap map = hideMapColumns(m_ctx, head, hidden, probability);
      const auto rowEdges = binEdges(0, map.rows, std::min(bins, map.rows));
      const auto colEdges = binEdges(0, map.cols, std::min(bins, map.cols));
      try {
        m_gpu.setMap(map);
        m_maps.push_back(m_gpu.run(rowEdges, colEdges, Reduction::Max));
      } catch (const std::exception&) {
        m_maps.push_back(downsampleReference(download(map), rowEdges, colEdges, Reduction::Max));  // same bins
      }
    }
}

std::optional<MapChoice> Thumbnails::draw(const AttentionKind& kind, const std::vector<int64_t>& hidden,
                                          Colormap colormap, const MapChoice& current, float cellPixels) {
  const int64_t heads = kind.heads(), layers = static_cast<int64_t>(kind.layers.size());
  if (heads == 0 || layers == 0) return std::nullopt;
  const auto bins = static_cast<int64_t>(cellPixels);
  if (m_maps.size() != static_cast<std::size_t>(layers * heads) || m_bins != bins) build(kind, hidden, bins);

  std::optional<MapChoice> clicked;
  ImDrawList* list = ImGui::GetWindowDrawList();
  for (int64_t l = 0; l < layers; ++l) {
    ImGui::Text("layer %lld", static_cast<long long>(l));
    for (int64_t h = 0; h < heads; ++h) {
      if (h) ImGui::SameLine();
      const Matrix& map = m_maps[static_cast<std::size_t>(l * heads + h)];
      ImGui::PushID(static_cast<int>(l * heads + h));
      const ImVec2 p0 = ImGui::GetCursorScreenPos();
      if (ImGui::InvisibleButton("thumb", ImVec2(cellPixels, cellPixels))) clicked = MapChoice{l, h, HeadMode::Single};
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("layer %lld, head %lld", static_cast<long long>(l), static_cast<long long>(h));
      ImGui::PopID();
      // Each thumbnail on its own linear scale: the overview is for the shape of each head.
      const ColorScale scale(colormap, Scale::Linear, 0.0f, std::max(valueRange(map).max, 1e-9f));
      std::vector<uint32_t> colors(map.values.size());
      for (std::size_t i = 0; i < colors.size(); ++i) {
        colors[i] = packOpaque(scale.color(map.values[i]));
      }
      auto edges = [](float start, int64_t cells, float pixels) {
        std::vector<float> out(static_cast<std::size_t>(cells + 1));
        for (int64_t i = 0; i <= cells; ++i)
          out[static_cast<std::size_t>(i)] = start + pixels * static_cast<float>(i) / static_cast<float>(cells);
        return out;
      };
      m_images.add(*list, edges(p0.x, map.cols, cellPixels), edges(p0.y, map.rows, cellPixels), colors);
      const bool selected = current.mode == HeadMode::Single && current.layer == l && current.head == h;
      list->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p0.x + cellPixels + 1, p0.y + cellPixels + 1),
                    selected ? IM_COL32(255, 200, 40, 255) : IM_COL32(90, 90, 90, 255), 0.0f, 0,
                    selected ? 2.0f : 1.0f);
    }
  }
  return clicked;
}

}  // namespace vkattn::viewer
