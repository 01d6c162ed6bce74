// Per-call cost of ops that take temporaries (uploaded tables, score matrices, split-K partial
// records), measured on the host from the call to its result (submission and wait included), with
// the context's scratch arena (the default) and with VKATTN_SCRATCH_ARENA=0 (a device allocation
// per temporary, the runtime before the arena) in the same process. Each case first checks that
// both contexts give the double reference's answer; the reported ratio is fresh-allocation time
// over arena time (above 1: the arena saves that much per call).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>

#include "vkattn/reference/attention_reference.hpp"
#include "vkattn/reference/error_stats.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/vkattn.hpp"

namespace {

using namespace vkattn;

struct Contexts {
  std::unique_ptr<Context> arena, fresh;
};

Contexts& contexts() {
  static Contexts c = [] {
    Contexts made;
    made.arena = std::make_unique<Context>();
    ::setenv("VKATTN_SCRATCH_ARENA", "0", 1);
    made.fresh = std::make_unique<Context>();
    ::unsetenv("VKATTN_SCRATCH_ARENA");
    return made;
  }();
  return c;
}

// One op on a context, returning its output; `expected` is the double reference's.
struct Case {
  std::function<std::vector<float>(Context&)> run;
  std::function<std::vector<double>()> expected;
  double atol, rtol;
  int calls;
};

double microsecondsPerCall(Context& ctx, const Case& c) {
  c.run(ctx);  // pipelines built, arena grown
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < c.calls; ++i) c.run(ctx);
  const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
  return took.count() / c.calls;
}

void BM_PerCall(benchmark::State& state, const Case& c) {
  Contexts& ctx = contexts();
  const std::vector<double> expected = c.expected();
  for (Context* x : {ctx.arena.get(), ctx.fresh.get()})
    if (reference::compare(c.run(*x), expected, c.atol, c.rtol).failures) {
      state.SkipWithError("output does not match the reference");
      return;
    }
  const double arena = microsecondsPerCall(*ctx.arena, c), fresh = microsecondsPerCall(*ctx.fresh, c);
  for (auto _ : state) state.SetIterationTime(arena * 1e-6);
  state.counters["us_per_call"] = arena;
  state.counters["fresh_us_per_call"] = fresh;
  state.counters["fresh/arena"] = fresh / arena;
  state.counters["arena_allocations"] = static_cast<double>(ctx.arena->recorder().scratchArena().allocations());
}

std::vector<float> values(std::size_t n, uint64_t seed) {
  return reference::randomValues(n, seed);
}

// RoPE on one decode token's q (its phase steps are an uploaded table).
const Case kRope{[](Context& c) {
                   static const std::vector<float> x = values(8 * 64, 1);
                   return rope(c, c.tensor({1, 8, 1, 64}, x)).download();
                 },
                 [] {
                   std::vector<int64_t> positions = {0};
                   return reference::ropeRef(values(8 * 64, 1), 1, 8, 1, 64, 64, false, 10000.0, positions);
                 },
                 2e-6, 0.0, 200};

// The naive path on a small problem (a score matrix and a head-index table).
reference::AttentionProblem smallProblem() {
  reference::AttentionProblem p;
  p.batch = 1;
  p.headsQ = p.headsKv = 2;
  p.lq = 8;
  p.lk = 9;
  p.dk = p.dv = 16;
  p.scale = 0.25;
  return p;
}
const Case kNaive{
    [](Context& c) {
      static const std::vector<float> q = values(2 * 8 * 16, 2), k = values(2 * 9 * 16, 3), v = values(2 * 9 * 16, 4);
      return attentionNaive(c, c.tensor({1, 2, 8, 16}, q), c.tensor({1, 2, 9, 16}, k), c.tensor({1, 2, 9, 16}, v))
          .download();
    },
    [] {
      return reference::attentionRef(smallProblem(), values(2 * 8 * 16, 2), values(2 * 9 * 16, 3),
                                     values(2 * 9 * 16, 4))
          .out;
    },
    2e-5, 1e-4, 200};

// A decode step of a Llama-sized layer with its K/V resident: H32/Hkv8, Lk 4096, D 128, f32, key
// splits (their partial records come from the arena).
reference::AttentionProblem decodeProblem() {
  reference::AttentionProblem p;
  p.batch = 1;
  p.headsQ = 32;
  p.headsKv = 8;
  p.lq = 1;
  p.lk = 4096;
  p.dk = p.dv = 128;
  p.scale = 1.0 / std::sqrt(128.0);
  return p;
}
const Case kDecode{
    [](Context& c) {
      static const std::vector<float> q = values(32 * 128, 5), k = values(8 * 4096 * 128, 6),
                                      v = values(8 * 4096 * 128, 7);
      static std::map<Context*, std::pair<Tensor, Tensor>> cache;
      auto& kv = cache[&c];
      if (!kv.first.buffer().size()) {
        kv.first = c.tensor({1, 8, 4096, 128}, k);
        kv.second = c.tensor({1, 8, 4096, 128}, v);
      }
      return attention(c, c.tensor({1, 32, 1, 128}, q), kv.first, kv.second, {.keySplits = 16}).download();
    },
    [] {
      return reference::attentionRef(decodeProblem(), values(32 * 128, 5), values(8 * 4096 * 128, 6),
                                     values(8 * 4096 * 128, 7))
          .out;
    },
    2e-5, 1e-4, 30};

BENCHMARK_CAPTURE(BM_PerCall, rope_decode_token_h8_d64, kRope)->UseManualTime()->Iterations(1);
BENCHMARK_CAPTURE(BM_PerCall, naive_attention_h2_l8_d16, kNaive)->UseManualTime()->Iterations(1);
BENCHMARK_CAPTURE(BM_PerCall, decode_step_h32_kv8_lk4096_d128_split16, kDecode)->UseManualTime()->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
