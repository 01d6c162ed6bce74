// The tiles Auto tries first on each vendor's GPUs (vkattn/ops/tile_rankings.hpp): ranked tiles
// before the portable order, each once; rankings only where a GPU or AMD's compiler ranked them;
// and every ranking's tiles and figures written in the section of the document it names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>

#include "vkattn/core/device_info.hpp"
#include "vkattn/ops/tile_rankings.hpp"

namespace vkattn {
namespace {

using Tile = std::array<uint32_t, 3>;
constexpr Tile kPortable[] = {{4, 32, 2}, {4, 32, 1}, {2, 32, 2}, {2, 16, 2}, {2, 32, 1}, {2, 16, 1}};
constexpr uint32_t kVendorIntel = 0x8086;

TEST(TileRankings, MeasuredTilesComeFirstThenThePortableOrderOnce) {
  const std::vector<Tile> nvidia = rankedTileOrder(kVendorNvidia, "linear coopmat", 0, kPortable);
  EXPECT_EQ(nvidia.front(), (Tile{2, 32, 1}));  // 27.1 TFLOP/s on the H100, 4x32x2 17.8
  EXPECT_EQ(nvidia[1], (Tile{4, 16, 2}));
  for (const Tile& t : kPortable) EXPECT_EQ(std::count(nvidia.begin(), nvidia.end(), t), 1);
  EXPECT_EQ(rankedTileOrder(kVendorAmd, "linear coopmat", 0, kPortable).front(), (Tile{4, 32, 1}));
  const std::vector<Tile> intel = rankedTileOrder(kVendorIntel, "linear coopmat", 0, kPortable);
  EXPECT_TRUE(std::equal(intel.begin(), intel.end(), std::begin(kPortable), std::end(kPortable)));
}

TEST(TileRankings, AttentionRankingHoldsForTheHeadDimsItWasMeasuredAt) {
  constexpr Tile kGpu[] = {{4, 64, 2}, {4, 32, 2}, {2, 64, 2}};
  EXPECT_EQ(rankedTileOrder(kVendorNvidia, "attention coopmat", 128, kGpu).front(), (Tile{4, 32, 2}));
  EXPECT_EQ(rankedTileOrder(kVendorNvidia, "attention coopmat", 64, kGpu).front(), (Tile{4, 32, 2}));
  EXPECT_EQ(rankedTileOrder(kVendorNvidia, "attention coopmat", 256, kGpu).front(), (Tile{4, 64, 2}));
  EXPECT_EQ(rankedTileOrder(kVendorAmd, "attention coopmat", 128, kGpu).front(), (Tile{4, 64, 2}));
  EXPECT_EQ(tileRankingFor(kVendorNvidia, "attention coopmat2", 128), nullptr);  // not ranked yet
}

TEST(TileRankings, DescriptionsSayMeasuredOrEstimate) {
  const std::string nvidia = describeTileRanking(kVendorNvidia, "linear coopmat");
  EXPECT_NE(nvidia.find("2x32x1 first, measured on NVIDIA H100"), std::string::npos) << nvidia;
  const std::string amd = describeTileRanking(kVendorAmd, "linear coopmat");
  EXPECT_NE(amd.find("estimated (not a speed)"), std::string::npos) << amd;
  EXPECT_NE(describeTileRanking(kVendorIntel, "linear coopmat").find("portable order"), std::string::npos);
}

// GitHub's anchor of a heading, as tools/ci/check_docs.py computes it.
std::string slug(std::string heading) {
  std::string out;
  for (char c : heading)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')
      out += static_cast<char>(std::tolower(c));
    else if (c == ' ')
      out += '-';
  return out;
}

TEST(TileRankings, EachRankingIsWrittenInTheSectionItNames) {
  for (const TileRanking& r : tileRankings()) {
    const std::string source(r.source);
    const std::size_t hash = source.find('#');
    ASSERT_NE(hash, std::string::npos) << source;
    const std::filesystem::path path = std::filesystem::path(VKATTN_SOURCE_DIR) / source.substr(0, hash);
    std::ifstream file(path);
    ASSERT_TRUE(file) << source;
    std::string line, section;
    bool inside = false;
    while (std::getline(file, line)) {
      if (line.rfind("## ", 0) == 0) {
        if (inside) break;
        inside = slug(line.substr(3)) == source.substr(hash + 1);
      } else if (inside) {
        section += line + "\n";
      }
    }
    ASSERT_FALSE(section.empty()) << "no section " << source;
    for (const RankedTile& t : r.tiles) {
      const std::string tile =
          std::to_string(t.tile[0]) + "×" + std::to_string(t.tile[1]) + "×" + std::to_string(t.tile[2]);
      EXPECT_NE(section.find(tile), std::string::npos) << tile << " is not in " << source;
      const std::string number(t.figure.substr(0, t.figure.find(' ')));
      EXPECT_NE(section.find(number), std::string::npos) << t.figure << " is not in " << source;
    }
  }
}

}  // namespace
}  // namespace vkattn
