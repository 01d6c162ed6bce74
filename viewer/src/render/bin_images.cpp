#include "render/bin_images.hpp"

#include <bin_image_push.h>

#include <cmath>
#include <limits>
#include <string>

#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

uint32_t wordOffset(std::size_t size) {
  if (size > std::numeric_limits<uint32_t>::max())
    throw Unsupported("bin images: " + std::to_string(size) + " words in one frame pass 2^32");
  return static_cast<uint32_t>(size);
}

}  // namespace

std::vector<uint32_t> pixelBins(std::span<const float> edges, float origin, uint32_t pixels) {
  std::vector<uint32_t> bins(pixels, BIN_IMAGE_NO_BIN);
  std::size_t b = 0;
  for (uint32_t i = 0; i < pixels && edges.size() >= 2; ++i) {
    const float centre = origin + static_cast<float>(i) + 0.5f;
    while (b + 2 < edges.size() && edges[b + 1] <= centre) ++b;
    if (edges[b] <= centre && centre < edges[b + 1]) bins[i] = static_cast<uint32_t>(b);
  }
  return bins;
}

void BinImages::add(ImDrawList& list, std::span<const float> colEdges, std::span<const float> rowEdges,
                    std::span<const uint32_t> colors) {
  if (colEdges.size() < 2 || rowEdges.size() < 2) return;
  const std::size_t binCols = colEdges.size() - 1, binRows = rowEdges.size() - 1;
  if (colors.size() != binRows * binCols)
    throw InvalidArgument("colors", std::to_string(colors.size()) + " colours for " + std::to_string(binRows) + " x " +
                                        std::to_string(binCols) + " bins");
  const ImVec2 origin(std::floor(colEdges.front()), std::floor(rowEdges.front()));
  const float width = std::ceil(colEdges.back() - origin.x), height = std::ceil(rowEdges.back() - origin.y);
  if (!(width >= 1.0f && height >= 1.0f)) return;
  const std::vector<uint32_t> colBins = pixelBins(colEdges, origin.x, static_cast<uint32_t>(width));
  const std::vector<uint32_t> rowBins = pixelBins(rowEdges, origin.y, static_cast<uint32_t>(height));
  BinImage& image = m_images.emplace_back();
  image.owner = this;
  image.origin = origin;
  image.width = static_cast<uint32_t>(colBins.size());
  image.height = static_cast<uint32_t>(rowBins.size());
  image.binCols = static_cast<uint32_t>(binCols);
  image.colBinsOffset = wordOffset(m_words.size());
  m_words.insert(m_words.end(), colBins.begin(), colBins.end());
  image.rowBinsOffset = wordOffset(m_words.size());
  m_words.insert(m_words.end(), rowBins.begin(), rowBins.end());
  image.colorsOffset = wordOffset(m_words.size());
  m_words.insert(m_words.end(), colors.begin(), colors.end());
  wordOffset(m_words.size());
  list.AddCallback(&BinImages::paint, &image);
  list.AddCallback(ImDrawCallback_ResetRenderState, nullptr);  // ImGui's pipeline and buffers again
}

void BinImages::clear() noexcept {
  m_words.clear();
  m_images.clear();
}

void BinImages::paint(const ImDrawList*, const ImDrawCmd* cmd) {
  const auto* image = static_cast<const BinImage*>(cmd->UserCallbackData);
  if (image->owner->m_painter) image->owner->m_painter(*image, *cmd);
}

}  // namespace vkattn::viewer
