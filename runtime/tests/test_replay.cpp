// Replay: ops recorded once and submitted again with new inputs written between submissions
// (the values, a cache's key length, the positions), each run checked against the double-precision
// references; bad input reported on the run that has it; misuse refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/compare.hpp"
#include "support/stacked_rows.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/replay.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/ops/rope.hpp"
#include "vkattn/ops/row_ops.hpp"
#include "vkattn/reference/attention_reference.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {
namespace {

using reference::randomValues;

TEST_F(VkattnTest, ReplayRunsItsRecordingOnTheInputsOfEachSubmission) {
  Tensor x = ctx().tensor({6, 37}), y = ctx().tensor({6, 37});
  Replay replay(ctx());
  replay.record([&] { softmax(ctx(), x, y, {.scale = 0.5f}); });
  EXPECT_EQ(replay.dispatches(), 1u);
  for (uint64_t run = 0; run < 3; ++run) {
    const std::vector<float> values = randomValues(6 * 37, 40 + run, -6.0f, 6.0f);
    x.upload(values);
    replay.submit();
    EXPECT_TRUE(allClose(y.download(), reference::softmaxRef(values, 37, 0.5, nullptr, {}), 2e-6, 1e-5)) << run;
  }
  // The context's own recorder is untouched: ops outside the replay run as before.
  const std::vector<float> other = randomValues(6 * 37, 7);
  EXPECT_TRUE(allClose(softmax(ctx(), ctx().tensor({6, 37}, other)).download(),
                       reference::softmaxRef(other, 37, 1.0, nullptr, {}), 2e-6, 1e-5));
}

// A decoded token's attention over a cache recorded once at its capacity: the number of keys it
// sees is read from the device (keyLengths), so one recording serves every length; under both
// profiles (the rows kernel of CPU drivers, the GPUs' decode kernel split over the keys).
void replayDecodeAttention(Context& c) {
  const int64_t heads = 4, kvHeads = 2, capacity = 300, dim = 64;
  const std::vector<float> qv = randomValues(heads * dim, 1), kv = randomValues(kvHeads * capacity * dim, 2),
                           vv = randomValues(kvHeads * capacity * dim, 3);
  Tensor q = c.tensor({1, heads, 1, dim}, qv), k = c.tensor({1, kvHeads, capacity, dim}, kv),
         v = c.tensor({1, kvHeads, capacity, dim}, vv), out = c.tensor({1, heads, 1, dim});
  Tensor length = c.tensor({1}, DType::I32);
  Replay replay(c);
  replay.record([&] {
    attention(c, q, k, v, out, {.causal = true, .alignment = MaskAlignment::BottomRight, .keyLengths = length.view()});
  });
  for (int32_t keys : {1, 5, 64, 257, 300}) {
    length.uploadInt(std::vector<int32_t>{keys});
    replay.submit();
    reference::AttentionProblem problem{.headsQ = 4,
                                        .headsKv = 2,
                                        .lq = 1,
                                        .lk = 300,
                                        .dk = 64,
                                        .dv = 64,
                                        .scale = 1.0 / 8.0,
                                        .causal = true,
                                        .bottomRight = true,
                                        .alignToKeyLengths = true};
    const std::vector<int32_t> lengths{keys};
    problem.keyLengths = &lengths;
    problem.withProbs = false;
    EXPECT_TRUE(allClose(out.download(), reference::attentionRef(problem, qv, kv, vv).out, 2e-5, 1e-4))
        << keys << " keys, " << toString(c.profile()) << " profile";
  }
}

TEST_F(VkattnTest, ReplayedDecodeAttentionReadsTheCacheLengthFromTheDevice) {
  replayDecodeAttention(ctx());
  Context gpu({.profile = KernelProfile::Gpu});
  replayDecodeAttention(gpu);
  EXPECT_TRUE(gpu.pipelines().built("attention_decode_f32"));
}

TEST_F(VkattnTest, ReplayedRopeReadsItsPositionsFromTheDevice) {
  const std::vector<float> values = randomValues(2 * 3 * 64, 5);
  Tensor x = ctx().tensor({1, 2, 3, 64}, values), y = ctx().tensor({1, 2, 3, 64});
  Tensor positions = ctx().tensor({3}, DType::I32);
  Replay replay(ctx());
  replay.record([&] { rope(ctx(), x, y, {.positions = positions.view()}); });
  for (int32_t first : {0, 17, 4000}) {
    positions.uploadInt(std::vector<int32_t>{first, first + 1, first + 2});
    replay.submit();
    const std::vector<int64_t> at{first, first + 1, first + 2};
    EXPECT_TRUE(allClose(y.download(), reference::ropeRef(values, 1, 2, 3, 64, 64, false, 10000.0, at), 2e-6, 0.0))
        << first;
  }
}

// A decoded token's RoPE and cache append recorded once: each run's projection rows land at the
// position the host wrote, filling the caches row by row as decoding would.
TEST_F(VkattnTest, ReplayedRopeAppendFillsTheCachesAtEachRunsPosition) {
  const StackedRows s{.B = 1, .L = 1, .Hq = 4, .Hkv = 2, .D = 32};
  const int64_t capacity = 6, kvWidth = s.Hkv * s.D;
  Tensor rows = ctx().tensor({1, 1, s.width()});
  Tensor keys = ctx().tensor({1, s.Hkv, capacity, s.D}), values = ctx().tensor({1, s.Hkv, capacity, s.D});
  Tensor position = ctx().tensor({1}, DType::I32);
  Replay replay(ctx());
  replay.record([&] {
    ropeAppend(ctx(), s.heads(rows, 0, s.Hq), s.heads(rows, s.Hq, s.Hkv), s.heads(rows, s.Hq + s.Hkv, s.Hkv), keys,
               values, {.positions = position.view()});
  });
  std::vector<double> keysRef(static_cast<std::size_t>(capacity * kvWidth));
  std::vector<float> valuesRef(keysRef.size());
  for (int32_t at = 0; at < capacity; ++at) {
    const std::vector<float> step = randomValues(static_cast<std::size_t>(s.width()), 300 + at);
    rows.upload(step);
    position.uploadInt(std::vector<int32_t>{at});
    replay.submit();
    const std::vector<double> k = reference::ropeRef(s.gather(step, s.Hq, s.Hkv), 1, s.Hkv, 1, s.D, s.D, false, 10000.0,
                                                     std::vector<int64_t>{at});
    const std::vector<float> v = s.gather(step, s.Hq + s.Hkv, s.Hkv);
    for (int64_t h = 0; h < s.Hkv; ++h)
      for (int64_t d = 0; d < s.D; ++d) {
        keysRef[static_cast<std::size_t>((h * capacity + at) * s.D + d)] = k[static_cast<std::size_t>(h * s.D + d)];
        valuesRef[static_cast<std::size_t>((h * capacity + at) * s.D + d)] = v[static_cast<std::size_t>(h * s.D + d)];
      }
    EXPECT_TRUE(allClose(
        s.gather(rows.download(), 0, s.Hq),
        reference::ropeRef(s.gather(step, 0, s.Hq), 1, s.Hq, 1, s.D, s.D, false, 10000.0, std::vector<int64_t>{at}),
        2e-6, 0.0))
        << "queries at " << at;
  }
  EXPECT_TRUE(allClose(keys.download(), keysRef, 2e-6, 0.0));
  EXPECT_EQ(values.download(), valuesRef);
}

TEST_F(VkattnTest, ReplayReportsBadInputOnTheRunThatHasItAndGoesOn) {
  Tensor x = ctx().tensor({2, 8}), y = ctx().tensor({2, 8});
  Replay replay(ctx());
  replay.record([&] { logSoftmax(ctx(), x, y); });
  std::vector<float> values = randomValues(16, 9);
  values[11] = std::numeric_limits<float>::quiet_NaN();
  x.upload(values);
  try {
    replay.submit();
    FAIL() << "no error for a NaN input";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "x");
  }
  values[11] = 1.0f;
  x.upload(values);
  EXPECT_NO_THROW(replay.submit());
  EXPECT_NO_THROW(replay.submit());
}

TEST_F(VkattnTest, ReplayRefusesMisuseByName) {
  Tensor x = ctx().tensor({2, 8}, randomValues(16, 4)), y = ctx().tensor({2, 8});
  Replay empty(ctx());
  EXPECT_THROW(empty.submit(), Error);  // nothing recorded
  Replay failing(ctx());
  EXPECT_THROW(failing.record([&] { softmax(ctx(), x, ctx().tensor({3, 8})); }), InvalidArgument);
  EXPECT_FALSE(failing.recorded());
  EXPECT_NO_THROW(softmax(ctx(), x, y));  // the context is as it was
  Replay timed(ctx());
  EXPECT_THROW(timed.record([&] { ctx().recorder().timestamp(); }), Unsupported);
  Replay once(ctx());
  once.record([&] { softmax(ctx(), x, y); });
  EXPECT_THROW(once.record([&] { softmax(ctx(), x, y); }), Error);
  {
    Batch batch(ctx());
    Replay inside(ctx());
    EXPECT_THROW(inside.record([&] { softmax(ctx(), x, y); }), Error);
  }
}

}  // namespace
}  // namespace vkattn::test
