// The FLOP counts that every rate divides by, against a brute-force count of visible pairs.
#include <gtest/gtest.h>

#include "vkattn/reference/work_counts.hpp"

namespace vkattn::reference {
namespace {

double bruteForcePairs(int64_t lq, int64_t lk, bool causal, bool bottomRight) {
  double pairs = 0;
  const int64_t shift = bottomRight ? lk - lq : 0;
  for (int64_t i = 0; i < lq; ++i)
    for (int64_t j = 0; j < lk; ++j) pairs += !causal || j <= i + shift;
  return pairs;
}

TEST(WorkCounts, AttentionPairsMatchBruteForce) {
  for (int64_t lq : {1, 2, 7, 64, 113})
    for (int64_t lk : {1, 3, 7, 64, 200})
      for (bool causal : {false, true})
        for (bool bottomRight : {false, true})
          EXPECT_EQ(attentionPairs(lq, lk, causal, bottomRight), bruteForcePairs(lq, lk, causal, bottomRight))
              << "lq " << lq << " lk " << lk << " causal " << causal << " bottomRight " << bottomRight;
}

TEST(WorkCounts, CausalDecodeSeesEveryKey) {
  // A decode step (one query, newest token) attends to the whole cache: nothing is halved.
  EXPECT_EQ(attentionFlops(1, 8, 1, 16384, 128, 128, true, true),
            attentionFlops(1, 8, 1, 16384, 128, 128, false, true));
  EXPECT_EQ(attentionFlops(2, 3, 5, 7, 16, 32, false, false), 2.0 * (16 + 32) * 2 * 3 * 5 * 7);
}

}  // namespace
}  // namespace vkattn::reference
