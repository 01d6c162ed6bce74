// The recorder's scratch arena: temporaries within one recording never overlap, a steady stream of
// calls stops allocating device memory after the first, a recording that outgrows the arena leaves
// it one chunk big enough for the next, every op that takes temporaries still matches its
// reference through it, and an allocation that fails inside the arena surfaces as OutOfMemory
// with the context still working.
#include <cstring>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/buffer.hpp"
#include "vkattn/core/fault_injection.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/vkattn.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

// A decode step with split-K (partial records from the arena), the naive path (its score matrix)
// and RoPE (its uploaded phase steps), one after another.
std::vector<float> stepsUsingScratch(Context& c) {
  Tensor q = c.tensor({1, 4, 1, 32}, randomValues(128, 1)), k = c.tensor({1, 2, 3000, 32}, randomValues(192000, 2)),
         v = c.tensor({1, 2, 3000, 32}, randomValues(192000, 3));
  std::vector<float> out = attention(c, q, k, v, {.keySplits = 4}).download();
  const std::vector<float> naive = attentionNaive(c, q, k, v).download();
  const std::vector<float> rotated = rope(c, q).download();
  out.insert(out.end(), naive.begin(), naive.end());
  out.insert(out.end(), rotated.begin(), rotated.end());
  return out;
}

TEST_F(VkattnTest, ScratchTemporariesOfOneRecordingDoNotOverlap) {
  Recorder& rec = ctx().recorder();
  std::vector<const Buffer*> blocks;
  std::vector<std::vector<uint32_t>> contents;
  for (uint32_t i = 0; i < 40; ++i) {  // sizes across chunk boundaries: 1 MiB chunks, up to 200 KiB each
    contents.emplace_back(1 + (i * 7919u) % 51200u, 0xA5000000u + i);
    blocks.push_back(&rec.upload(contents.back().data(), contents.back().size() * 4));
  }
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    std::vector<uint32_t> back(contents[i].size());
    blocks[i]->read(back.data(), back.size() * 4);
    EXPECT_EQ(back, contents[i]) << "temporary " << i;
  }
  rec.discard();
}

TEST_F(VkattnTest, ScratchArenaStopsAllocatingAndKeepsResults) {
  Context c;
  const ScratchArena& arena = c.recorder().scratchArena();
  const std::vector<float> first = stepsUsingScratch(c);
  const std::size_t allocations = arena.allocations();
  EXPECT_GE(allocations, 1u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(stepsUsingScratch(c), first) << "call " << i;
  EXPECT_EQ(arena.allocations(), allocations) << "later calls allocated device memory";
  EXPECT_EQ(arena.chunks(), 1u);
}

TEST_F(VkattnTest, ScratchArenaGrowsToOneChunkForTheLargestRecording) {
  Context c;
  const ScratchArena& arena = c.recorder().scratchArena();
  auto record = [&] {
    Batch batch(c);
    for (int i = 0; i < 6; ++i) c.scratch({1000, 1000});  // 6 x 4 MB in one recording
    batch.submit();
  };
  record();
  const std::size_t grown = arena.allocations();
  EXPECT_GT(grown, 1u) << "six 4 MB temporaries fit the first chunk";
  record();  // the pieces were released; one chunk of the whole recording replaces them
  EXPECT_EQ(arena.allocations(), grown + 1);
  EXPECT_EQ(arena.chunks(), 1u);
  EXPECT_GE(arena.capacity(), std::size_t{24'000'000});
  const std::size_t allocations = arena.allocations();
  record();
  EXPECT_EQ(arena.allocations(), allocations);
}

TEST_F(VkattnTest, ScratchArenaOutOfMemoryLeavesTheContextWorking) {
  std::vector<float> expected;
  {
    Context c;
    expected = stepsUsingScratch(c);
  }
  int failures = 0;
  for (uint64_t nth = 1; nth < 32; ++nth) {
    Context c;  // an empty arena: its first chunk is allocated inside the ops
    injectFault(FaultSite::MemoryAllocation, nth, VK_ERROR_OUT_OF_DEVICE_MEMORY, 2);
    bool failed = false;
    try {
      stepsUsingScratch(c);
    } catch (const OutOfMemory& e) {
      failed = true;
      EXPECT_NE(std::string(e.what()).find("vkAllocateMemory"), std::string::npos) << e.what();
    }
    clearFaults();
    EXPECT_EQ(stepsUsingScratch(c), expected) << "after a failed allocation " << nth;
    if (!failed) break;
    ++failures;
  }
  EXPECT_GT(failures, 3) << "the sweep did not reach the arena's allocations";
}

}  // namespace
}  // namespace vkattn::test
