// fp16 conversion (vkattn/core/half.hpp): every half round-trips through float, and floats round to
// the nearest half (ties to even) as an exhaustive search over the halves finds it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "vkattn/core/half.hpp"

namespace vkattn {
namespace {

TEST(Half, EveryHalfRoundTrips) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const float f = halfToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(f))));
      continue;
    }
    ASSERT_EQ(floatToHalf(f), bits) << "half 0x" << std::hex << bits;
  }
}

TEST(Half, RoundsToNearestEvenLikeAnExhaustiveSearch) {
  // Reference: the nearest finite half by value (ties to the even bit pattern), or inf past 65520.
  std::vector<std::pair<double, uint16_t>> halves;
  for (uint32_t bits = 0; bits < 0x7c00; ++bits) halves.push_back({halfToFloat(static_cast<uint16_t>(bits)), bits});
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> logMagnitude(-26.0, 17.0);
  for (int i = 0; i < 20000; ++i) {
    const float f = static_cast<float>(std::exp2(logMagnitude(rng)));
    uint16_t expected;
    if (f >= 65520.0f) {
      expected = 0x7c00;
    } else {
      auto it = std::lower_bound(halves.begin(), halves.end(), std::make_pair(static_cast<double>(f), uint16_t{0}));
      const auto& hi = it == halves.end() ? halves.back() : *it;
      const auto& lo = it == halves.begin() ? *it : *(it - 1);
      const double dHi = hi.first - f, dLo = f - lo.first;
      expected = dLo < dHi ? lo.second : dHi < dLo ? hi.second : ((lo.second & 1) ? hi.second : lo.second);
    }
    ASSERT_EQ(floatToHalf(f), expected) << "float " << f;
    ASSERT_EQ(floatToHalf(-f), expected | 0x8000) << "float " << -f;
  }
}

}  // namespace
}  // namespace vkattn
