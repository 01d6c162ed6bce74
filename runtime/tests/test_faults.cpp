// What every op does when the driver fails: an allocation or a submission that runs out of
// memory surfaces as OutOfMemory naming the call, and the context keeps working (the same op
// then gives the same answer); a lost device surfaces as DeviceLost, and every later call on that
// context fails cleanly until a new one is made. Faults are injected at the runtime's Vulkan calls
// (vkattn/core/fault_injection.hpp), swept over every allocation each op makes.
#include <cstdlib>
#include <functional>
#include <string>

#include "support/test_context.hpp"
#include "vkattn/core/fault_injection.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/vkattn.hpp"

namespace vkattn::test {
using namespace vkattn::reference;
namespace {

using Op = std::function<std::vector<float>(Context&)>;

struct NamedOp {
  const char* name;
  Op run;
};

std::vector<NamedOp> everyOp() {
  auto values = [](std::size_t n, uint64_t seed) { return randomValues(n, seed); };
  return {
      {"softmax",
       [=](Context& c) {
         return softmax(c, c.tensor({3, 40}, values(120, 1))).download();
       }},
      {"layer_norm",
       [=](Context& c) {
         return layerNorm(c, c.tensor({3, 40}, values(120, 2))).download();
       }},
      {"rms_norm",
       [=](Context& c) {
         return rmsNorm(c, c.tensor({3, 40}, values(120, 3))).download();
       }},
      {"rope",
       [=](Context& c) {
         return rope(c, c.tensor({1, 2, 5, 8}, values(80, 4))).download();
       }},
      {"attention",
       [=](Context& c) {
         Tensor q = c.tensor({1, 2, 7, 16}, values(224, 5)), k = c.tensor({1, 2, 9, 16}, values(288, 6)),
                v = c.tensor({1, 2, 9, 16}, values(288, 7));
         return attention(c, q, k, v, {.causal = true}).download();
       }},
      {"attention_decode_split",
       [=](Context& c) {
         Tensor q = c.tensor({1, 2, 1, 16}, values(32, 8)), k = c.tensor({1, 2, 3000, 16}, values(96000, 9)),
                v = c.tensor({1, 2, 3000, 16}, values(96000, 10));
         return attention(c, q, k, v).download();
       }},
      {"attention_naive",
       [=](Context& c) {
         Tensor q = c.tensor({1, 2, 7, 16}, values(224, 11)), k = c.tensor({1, 2, 9, 16}, values(288, 12)),
                v = c.tensor({1, 2, 9, 16}, values(288, 13));
         return attentionNaive(c, q, k, v).download();
       }},
      {"attention_weights",
       [=](Context& c) {
         Tensor q = c.tensor({1, 2, 7, 16}, values(224, 14)), k = c.tensor({1, 2, 9, 16}, values(288, 15));
         return attentionWeights(c, q, k, {1}).download();
       }},
      {"linear",
       [=](Context& c) {
         Tensor x = c.tensor({5, 12}, values(60, 16)), w = c.tensor({7, 12}, values(84, 17));
         return linear(c, x, w, {.activation = Activation::Gelu}).download();
       }},
      {"swiglu",
       [=](Context& c) {
         return swiglu(c, c.tensor({33}, values(33, 18)), c.tensor({33}, values(33, 19))).download();
       }},
      {"add",
       [=](Context& c) { return add(c, c.tensor({33}, values(33, 20)), c.tensor({33}, values(33, 21))).download(); }},
      {"embedding",
       [=](Context& c) {
         Tensor table = c.tensor({6, 8}, values(48, 22));
         Tensor ids = Tensor::fromHostInt(c.device(), {4}, std::vector<int32_t>{5, 0, 3, 3});
         return embedding(c, table, ids).download();
       }},
      {"batch_in_parts",  // more dispatches than one part (Recorder::kPartDispatches): several submissions
       [=](Context& c) {
         Tensor x = c.tensor({33}, values(33, 29)), one = c.tensor({33}, std::vector<float>(33, 1.0f));
         Batch batch(c);
         for (uint32_t i = 0; i < 2 * Recorder::kPartDispatches + 5; ++i) add(c, x, one, x);
         batch.submit();
         return x.download();
       }},
      {"additive_attention",
       [=](Context& c) {
         Tensor q = c.tensor({1, 3, 4}, values(12, 23)), k = c.tensor({1, 5, 6}, values(30, 24)),
                val = c.tensor({1, 5, 2}, values(10, 25)), wq = c.tensor({8, 4}, values(32, 26)),
                wk = c.tensor({8, 6}, values(48, 27)), vv = c.tensor({8}, values(8, 28));
         return additiveAttention(c, q, k, val, wq, wk, vv).download();
       }},
  };
}

class Faults : public VkattnTest {
 protected:
  void TearDown() override {
    clearFaults();
    VkattnTest::TearDown();
  }
};

TEST_F(Faults, OutOfMemoryAtAnyAllocationLeavesTheContextWorking) {
  for (const NamedOp& op : everyOp()) {
    SCOPED_TRACE(op.name);
    const std::vector<float> expected = op.run(ctx());
    int failures = 0;
    for (uint64_t nth = 1; nth < 64; ++nth) {
      // Twice in a row: a storage buffer in mapped device-local memory retries in plain
      // device-local memory, which must fail too for the call to run out of memory.
      injectFault(FaultSite::MemoryAllocation, nth, VK_ERROR_OUT_OF_DEVICE_MEMORY, 2);
      bool failed = false;
      try {
        op.run(ctx());
      } catch (const OutOfMemory& e) {
        failed = true;
        EXPECT_NE(std::string(e.what()).find("vkAllocateMemory"), std::string::npos) << e.what();
      }
      clearFaults();
      EXPECT_EQ(op.run(ctx()), expected) << "after a failed allocation " << nth;
      if (!failed) break;  // the op made fewer than nth allocations: every one has been tried
      ++failures;
    }
    EXPECT_GT(failures, 0) << "no allocation failed: the sweep exercised nothing";
  }
}

TEST_F(Faults, MappedDeviceMemoryFallsBackToStagingCopies) {
  // Resizable BAR (and lavapipe, whose device-local memory is host-visible too): when that
  // allocation runs out or its mapping fails, the buffer lives in device-local memory unmapped and
  // every read and write goes through a staging copy, with the same results.
  if (!ctx().device().unifiedMemory()) GTEST_SKIP() << "storage buffers are not mapped on this device";
  const std::vector<float> x = randomValues(120, 3);
  const std::vector<float> expected = softmax(ctx(), ctx().tensor({3, 40}, x)).download();
  for (const auto& [site, result] : {std::pair{FaultSite::MemoryAllocation, VK_ERROR_OUT_OF_DEVICE_MEMORY},
                                     std::pair{FaultSite::MemoryMapping, VK_ERROR_MEMORY_MAP_FAILED}}) {
    SCOPED_TRACE(site == FaultSite::MemoryAllocation ? "allocation" : "mapping");
    injectFault(site, 1, result);
    Tensor t = ctx().tensor({3, 40}, x);  // its storage buffer is the next allocation and mapping
    clearFaults();
    EXPECT_EQ(t.buffer().mapped(), nullptr);
    EXPECT_EQ(t.download(), x);
    Tensor y = ctx().tensor({3, 40});
    softmax(ctx(), t, y);
    EXPECT_EQ(y.download(), expected);
  }
}

TEST_F(Faults, OutOfMemoryAtSubmissionLeavesTheContextWorking) {
  for (const NamedOp& op : everyOp()) {
    SCOPED_TRACE(op.name);
    const std::vector<float> expected = op.run(ctx());
    injectFault(FaultSite::QueueSubmit, 1, VK_ERROR_OUT_OF_HOST_MEMORY);
    EXPECT_THROW(op.run(ctx()), OutOfMemory);
    clearFaults();
    EXPECT_EQ(op.run(ctx()), expected);
  }
}

// A batch submitted in parts: a failure at any of its submissions (a part, or the last one with
// the fence) surfaces as OutOfMemory, the parts already submitted finish, and the batch then runs
// whole and right.
TEST_F(Faults, OutOfMemoryAtAnyPartOfABatchLeavesTheContextWorking) {
  if (std::getenv("VKATTN_PART_DISPATCHES")) GTEST_SKIP() << "VKATTN_PART_DISPATCHES sets another part size";
  const std::vector<float> x = randomValues(33, 30);
  const auto run = [&] {
    Tensor t = ctx().tensor({33}, x), one = ctx().tensor({33}, std::vector<float>(33, 1.0f));
    Batch batch(ctx());
    for (uint32_t i = 0; i < 2 * Recorder::kPartDispatches + 5; ++i) add(ctx(), t, one, t);
    batch.submit();
    return t.download();
  };
  std::vector<float> expected = x;  // one f32 addition at a time, as the kernel rounds
  for (float& v : expected)
    for (uint32_t i = 0; i < 2 * Recorder::kPartDispatches + 5; ++i) v += 1.0f;
  for (uint64_t nth : {1, 2, 3}) {
    SCOPED_TRACE("submission " + std::to_string(nth));
    injectFault(FaultSite::QueueSubmit, nth, VK_ERROR_OUT_OF_HOST_MEMORY);
    EXPECT_THROW(run(), OutOfMemory);
    clearFaults();
    EXPECT_EQ(run(), expected);
  }
}

TEST_F(Faults, ALostDeviceFailsEveryLaterCallCleanly) {
  for (const NamedOp& op : everyOp()) {
    SCOPED_TRACE(op.name);
    Context lost;  // a context of its own: it is unusable afterwards
    Tensor kept = lost.tensor({4}, std::vector<float>{1, 2, 3, 4});
    injectFault(FaultSite::QueueSubmit, 1, VK_ERROR_DEVICE_LOST);
    EXPECT_THROW(op.run(lost), DeviceLost);
    clearFaults();
    for (const NamedOp& later : everyOp()) {
      try {
        later.run(lost);
        ADD_FAILURE() << later.name << " ran on a lost device";
      } catch (const DeviceLost& e) {
        EXPECT_NE(std::string(e.what()).find("create a new vkattn::Context"), std::string::npos) << e.what();
      }
    }
    EXPECT_THROW(kept.download(), DeviceLost);
    EXPECT_THROW(lost.tensor({4}), DeviceLost);
  }
  // A new context works.
  Context fresh;
  EXPECT_EQ(softmax(fresh, fresh.tensor({2}, std::vector<float>{0, 0})).download(), (std::vector<float>{0.5f, 0.5f}));
}

}  // namespace
}  // namespace vkattn::test
