#include "vkattn/ops/tile_rankings.hpp"

#include <algorithm>

#include "vkattn/core/device_info.hpp"

namespace vkattn {
namespace {

// docs/gpu-h100.md, "Kernel and tile sweep" (2026-11-26): attention coopmat ROWS x KEYS x STAGES.
constexpr RankedTile kNvidiaAttention[] = {{{4, 32, 2}, "38.5 TFLOP/s"},
                                           {{4, 32, 1}, "38.1 TFLOP/s"},
                                           {{4, 16, 2}, "35.5 TFLOP/s"},
                                           {{2, 32, 2}, "12.8 TFLOP/s"}};
// The same sweep: linear coopmat FRAGS x BK x STAGES.
constexpr RankedTile kNvidiaLinear[] = {{{2, 32, 1}, "27.1 TFLOP/s"}, {{4, 16, 2}, "21.7 TFLOP/s"},
                                        {{2, 16, 2}, "21.1 TFLOP/s"}, {{4, 32, 1}, "18.3 TFLOP/s"},
                                        {{4, 32, 2}, "17.8 TFLOP/s"}, {{2, 32, 2}, "9.4 TFLOP/s"}};
// docs/gpu-compilers.md, "What the figures say" (2026-11-28, navi31): inverse throughput per WMMA
// of the main loop, fewer first, 4x32x1's 10 waves per SIMD before 4x16x2's 8.
constexpr RankedTile kAmdLinear[] = {{{4, 32, 1}, "232 per WMMA"},
                                     {{4, 16, 2}, "265 per WMMA"},
                                     {{4, 32, 2}, "320 per WMMA"},
                                     {{2, 32, 2}, "396 per WMMA"},
                                     {{2, 16, 2}, "562 per WMMA"}};

constexpr TileRanking kRankings[] = {
    {kVendorNvidia, "attention coopmat", TileEvidence::Measured, "NVIDIA H100 80GB HBM3",
     "f16 B x H x L x D = 2 x 16 x 4096 x 128, non-causal", 128, "docs/gpu-h100.md#kernel-and-tile-sweep",
     kNvidiaAttention},
    {kVendorNvidia, "linear coopmat", TileEvidence::Measured, "NVIDIA H100 80GB HBM3", "f16 4096^3, gelu(x W^T + b)", 0,
     "docs/gpu-h100.md#kernel-and-tile-sweep", kNvidiaLinear},
    {kVendorAmd, "linear coopmat", TileEvidence::CompilerEstimate, "RADV NAVI31 (AMD's compiler, null device)",
     "f16 512 x 4096 x 4096", 0, "docs/gpu-compilers.md#what-the-figures-say", kAmdLinear},
};

std::string tileName(const std::array<uint32_t, 3>& t) {
  return std::to_string(t[0]) + "x" + std::to_string(t[1]) + "x" + std::to_string(t[2]);
}

}  // namespace

std::span<const TileRanking> tileRankings() {
  return kRankings;
}

const TileRanking* tileRankingFor(uint32_t vendorId, std::string_view kernel, uint32_t headDim) {
  for (const TileRanking& r : kRankings)
    if (r.vendorId == vendorId && r.kernel == kernel && (r.upToHeadDim == 0 || headDim <= r.upToHeadDim)) return &r;
  return nullptr;
}

std::vector<std::array<uint32_t, 3>> rankedTileOrder(uint32_t vendorId, std::string_view kernel, uint32_t headDim,
                                                     std::span<const std::array<uint32_t, 3>> portable) {
  std::vector<std::array<uint32_t, 3>> order;
  if (const TileRanking* ranking = tileRankingFor(vendorId, kernel, headDim))
    for (const RankedTile& t : ranking->tiles) order.push_back(t.tile);
  for (const auto& t : portable)
    if (std::find(order.begin(), order.end(), t) == order.end()) order.push_back(t);
  return order;
}

std::string describeTileRanking(uint32_t vendorId, std::string_view kernel) {
  const TileRanking* r = tileRankingFor(vendorId, kernel);
  if (!r) return "the portable order (no GPU of this vendor has ranked the " + std::string(kernel) + " kernel's tiles)";
  std::string figures;
  for (const RankedTile& t : r->tiles)
    figures += (figures.empty() ? "" : ", ") + tileName(t.tile) + " " + std::string(t.figure);
  const std::string dims = r->upToHeadDim ? ", head dims up to " + std::to_string(r->upToHeadDim) : "";
  return tileName(r->tiles.front().tile) + " first" + dims + ", " +
         (r->evidence == TileEvidence::Measured ? "measured on " : "estimated (not a speed) from ") +
         std::string(r->device) + ", " + std::string(r->shape) + ": " + figures + " (" + std::string(r->source) + ")";
}

}  // namespace vkattn
