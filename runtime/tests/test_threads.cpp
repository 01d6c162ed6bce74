// What may be shared between threads: a Context (and everything made from it) belongs to one
// thread at a time; separate Contexts run concurrently, on devices of their own or on one device
// (Context(SharedDevice): one queue, submissions under its lock). Here several threads, each with
// its own Context, run ops at once and every result is checked against the double reference.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include "vkattn/reference/attention_reference.hpp"
#include "vkattn/reference/error_stats.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/reference/tolerances.hpp"
#include "vkattn/vkattn.hpp"

namespace vkattn::test {
namespace {

using namespace vkattn::reference;

// One thread's work: softmax and causal attention on its own data, `rounds` times.
int runOn(Context& ctx, int thread, int rounds) {
  int failures = 0;
  for (int round = 0; round < rounds; ++round) {
    const uint64_t seed = static_cast<uint64_t>(thread * 100 + round);
    const std::vector<float> x = randomValues(5 * 37, seed);
    const Tolerance st = toleranceFor(Checked::Softmax, DType::F32);
    failures +=
        compare(softmax(ctx, ctx.tensor({5, 37}, x)).download(), softmaxRef(x, 37, 1.0, nullptr, {}), st.atol, st.rtol)
            .failures > 0;

    AttentionProblem p;
    p.batch = 1;
    p.headsQ = p.headsKv = 2;
    p.lq = p.lk = 9;
    p.dk = p.dv = 16;
    p.scale = 0.25;
    p.causal = true;
    const auto q = randomValues(288, seed + 1), k = randomValues(288, seed + 2), v = randomValues(288, seed + 3);
    const Tensor out = attention(ctx, ctx.tensor({1, 2, 9, 16}, q), ctx.tensor({1, 2, 9, 16}, k),
                                 ctx.tensor({1, 2, 9, 16}, v), {.scale = 0.25f, .causal = true});
    const Tolerance at = toleranceFor(Checked::Attention, DType::F32);
    failures += compare(out.download(), attentionRef(p, q, k, v).out, at.atol, at.rtol).failures > 0;
  }
  return failures;
}

TEST(Threads, ContextsOnSeparateThreadsRunConcurrently) {
  constexpr int kThreads = 4, kRounds = 6;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &failures] {
      Context ctx;
      failures += runOn(ctx, t, kRounds);
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(Threads, ContextsSharingOneDeviceRunConcurrently) {
  constexpr int kThreads = 3, kRounds = 4;
  Context owner;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &owner, &failures] {
      Context shared(SharedDevice{owner});
      failures += runOn(shared, t, kRounds);
    });
  failures += runOn(owner, kThreads, kRounds);  // the owner submits on the same queue meanwhile
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);

  // A tensor made on the shared context is one the owner's ops read: the same VkDevice.
  std::vector<float> x = randomValues(3 * 17, 5);
  std::optional<Tensor> made;
  std::thread([&] {
    Context shared(SharedDevice{owner});
    EXPECT_EQ(shared.device().handle(), owner.device().handle());
    made = shared.tensor({3, 17}, x);
  }).join();
  const Tolerance st = toleranceFor(Checked::Softmax, DType::F32);
  EXPECT_EQ(compare(softmax(owner, *made).download(), softmaxRef(x, 17, 1.0, nullptr, {}), st.atol, st.rtol).failures,
            0u);
  EXPECT_EQ(owner.instance().validationMessageCount(), 0u);
}

}  // namespace
}  // namespace vkattn::test
