// amdMainLoop on hand-written listings in the syntax of RADV's "Assembly" representation.
#include <gtest/gtest.h>

#include <string>

#include "isa_main_loop.hpp"

namespace vkattn::cli {
namespace {

TEST(IsaMainLoop, CountsAWaitAfterEachLoad) {
  const std::string isa =
      "BB0:\n\ts_mov_b32 s0, 0\nBB1:\n"
      "\tbuffer_load_b128 v[0:3], v8, s[4:7], 0 offen\n\ts_waitcnt vmcnt(0)\n\tds_store_b128 v9, v[0:3]\n"
      "\tbuffer_load_b128 v[0:3], v10, s[4:7], 0 offen\n\ts_waitcnt vmcnt(0)\n\tds_store_b128 v11, v[0:3]\n"
      "\tv_wmma_f32_16x16x16_f16 v[16:23], v[24:31], v[32:39], v[16:23]\n"
      "\ts_cmp_lg_u32 s0, s1\n\ts_cbranch_scc1 BB1\nBB2:\n\ts_endpgm\n";
  const auto loop = amdMainLoop(isa);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->memoryLoads, 2);
  EXPECT_EQ(loop->fullMemoryWaits, 2);
  EXPECT_EQ(loop->matrixInstructions, 1);
}

TEST(IsaMainLoop, LoadsInFlightTogetherWaitOnce) {
  const std::string isa =
      "BB0:\nBB1:\n"
      "\tbuffer_load_b128 v[0:3], v8, s[4:7], 0 offen\n\tbuffer_load_b128 v[4:7], v10, s[4:7], 0 offen\n"
      "\tv_wmma_f32_16x16x16_f16 v[16:23], v[24:31], v[32:39], v[16:23]\n"
      "\ts_waitcnt vmcnt(1)\n\tds_store_b128 v9, v[0:3]\n\ts_waitcnt vmcnt(0) lgkmcnt(0)\n\tds_store_b128 v11, v[4:7]\n"
      "\ts_cbranch_scc1 BB1\nBB2:\n\ts_endpgm\n";
  const auto loop = amdMainLoop(isa);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->memoryLoads, 2);
  EXPECT_EQ(loop->fullMemoryWaits, 1);
}

// A uniform branch takes one side a trip: the waits of the side with the most count, not both.
TEST(IsaMainLoop, CountsTheTripWithTheMostWaits) {
  const std::string isa =
      "BB0:\nBB1:\n\tv_wmma_f32_16x16x16_f16 v[16:23], v[24:31], v[32:39], v[16:23]\n\ts_cbranch_scc0 BB3\n"
      "BB2:\n\tglobal_load_b64 v[0:1], v[2:3], off\n\ts_waitcnt vmcnt(0)\n\ts_branch BB4\n"
      "BB3:\n\tbuffer_load_u16 v0, v8, s[4:7], 0 offen\n\ts_waitcnt vmcnt(0)\n"
      "\tbuffer_load_u16 v1, v8, s[4:7], 0 offen\n\ts_wait_loadcnt 0x0\n"
      "BB4:\n\ts_cbranch_scc1 BB1\nBB5:\n\ts_endpgm\n";
  const auto loop = amdMainLoop(isa);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->memoryLoads, 3);
  EXPECT_EQ(loop->fullMemoryWaits, 2);  // BB3's two (RDNA4's spelling included), not BB2's one as well
}

// The loop with the matrix instructions is the main one, though another holds more lines and waits.
TEST(IsaMainLoop, PrefersTheLoopWithMatrixInstructions) {
  std::string isa = "BB0:\nBB1:\n";
  for (int i = 0; i < 6; ++i) isa += "\tbuffer_load_b32 v0, v8, s[4:7], 0 offen\n\ts_waitcnt vmcnt(0)\n";
  isa +=
      "\ts_cbranch_scc1 BB1\nBB2:\n\tv_wmma_f32_16x16x16_f16 v[16:23], v[24:31], v[32:39], v[16:23]\n"
      "\ts_cbranch_vccnz BB2\nBB3:\n\ts_endpgm\n";
  const auto loop = amdMainLoop(isa);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->matrixInstructions, 1);
  EXPECT_EQ(loop->fullMemoryWaits, 0);
}

TEST(IsaMainLoop, NoneWithoutABackwardBranch) {
  EXPECT_FALSE(amdMainLoop("BB0:\n\ts_cbranch_scc0 BB1\nBB1:\n\ts_endpgm\n"));
  EXPECT_FALSE(amdMainLoop("MOV R1, c[0x0][0x28] ;\nEXIT ;\n"));
}

}  // namespace
}  // namespace vkattn::cli
