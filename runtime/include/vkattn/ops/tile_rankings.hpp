// The tiles Auto tries first for the cooperative-matrix kernels on each vendor's GPUs, in the order
// a GPU ran them fastest, or, labelled as estimates, the order AMD's compiler statistics rank
// them: each row names the document section that records the run and states its figures, so a
// choice can be traced to what decided it (the rankings test checks the figures are there).
// After a ranking's tiles Auto walks the kernel's portable order, for what the device's shared
// memory does not fit; a vendor or kernel without a row gets that order alone. A kernel that has
// not executed on a GPU has no row.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vkattn {

enum class TileEvidence {
  Measured,          // timed on a GPU, each result verified first
  CompilerEstimate,  // ranked from the driver's compiler statistics: not a speed
};

struct RankedTile {
  std::array<uint32_t, 3> tile;  // attention: rows x keys x stages; linear: fragments x BK x stages
  std::string_view figure;       // as the source states it ("38.5 TFLOP/s", "232 per WMMA")
};

struct TileRanking {
  uint32_t vendorId = 0;    // kVendorNvidia, kVendorAmd
  std::string_view kernel;  // "attention coopmat", "linear coopmat"
  TileEvidence evidence = TileEvidence::Measured;
  std::string_view device;            // where: "NVIDIA H100 80GB HBM3"
  std::string_view shape;             // what ran: "f16 2x16x4096x128, non-causal"
  uint32_t upToHeadDim = 0;           // attention: the ranking holds for head dims up to this (0: any)
  std::string_view source;            // the document and section: "docs/gpu-h100.md#kernel-and-tile-sweep"
  std::span<const RankedTile> tiles;  // best first
};

std::span<const TileRanking> tileRankings();
// The ranking of `kernel` on `vendorId`'s GPUs that holds at head dim `headDim` (0: the first
// for any), or nullptr.
const TileRanking* tileRankingFor(uint32_t vendorId, std::string_view kernel, uint32_t headDim = 0);
// `portable` with that ranking's tiles first, in its order (without one: `portable`).
std::vector<std::array<uint32_t, 3>> rankedTileOrder(uint32_t vendorId, std::string_view kernel, uint32_t headDim,
                                                     std::span<const std::array<uint32_t, 3>> portable);
// "4x32x2 first, measured on NVIDIA H100 80GB HBM3, ...: 4x32x2 38.5 TFLOP/s, ... (docs/...)", or
// that the portable order applies.
std::string describeTileRanking(uint32_t vendorId, std::string_view kernel);

}  // namespace vkattn
