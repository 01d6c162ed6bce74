// Attention throughput in GFLOP/s (2·(Dk + Dv) per visible query/key pair: a causal prefill
// counts half the pairs, a causal decode step all of them), each case verified against the
// double-precision reference first, and reported as a ratio to the project's naive three-pass
// path (S = QKᵀ to memory, softmax, SV) timed in the same process; paged-cache and K/V-format
// cases against the same kernel on the dense f32 cache; the decode kernel against the rows kernel. The measuring code
// is measure/measurements.cpp, shared with `vkattn bench attention`.
#include "report.hpp"

namespace {

using namespace vkattn;

void BM_Attention(benchmark::State& state, measure::AttentionCase c) {
  bench::report(state, measure::measureAttention(bench::context(), c));
}

#define VKATTN_ATTENTION_BENCH(name, ...)                                    \
  BENCHMARK_CAPTURE(BM_Attention, name, measure::AttentionCase{__VA_ARGS__}) \
      ->UseManualTime()                                                      \
      ->Iterations(1)                                                        \
      ->Unit(benchmark::kMillisecond)

VKATTN_ATTENTION_BENCH(h8_l1024_d64_f32, .heads = 8, .queries = 1024, .len = 1024, .dim = 64);
VKATTN_ATTENTION_BENCH(h8_l1024_d64_causal_f32, .heads = 8, .queries = 1024, .len = 1024, .dim = 64, .causal = true);
VKATTN_ATTENTION_BENCH(h8_l1024_d128_f32, .heads = 8, .queries = 1024, .len = 1024, .dim = 128);
VKATTN_ATTENTION_BENCH(h8_l1024_d64_f16, .heads = 8, .queries = 1024, .len = 1024, .dim = 64, .dtype = DType::F16);
VKATTN_ATTENTION_BENCH(h8_l1024_d64_tiled_f32, .heads = 8, .queries = 1024, .len = 1024, .dim = 64,
                       .variant = AttentionVariant::Tiled);
VKATTN_ATTENTION_BENCH(h8_l1024_d64_coopmat_f16, .heads = 8, .queries = 1024, .len = 1024, .dim = 64,
                       .dtype = DType::F16, .variant = AttentionVariant::Coopmat);
VKATTN_ATTENTION_BENCH(h8_l1024_d128_coopmat_f16, .heads = 8, .queries = 1024, .len = 1024, .dim = 128,
                       .dtype = DType::F16, .variant = AttentionVariant::Coopmat);
VKATTN_ATTENTION_BENCH(decode_h8_lk16384_d128_f32, .heads = 8, .queries = 1, .len = 16384, .dim = 128, .causal = true);
VKATTN_ATTENTION_BENCH(decode_h32_kv8_lk4096_d128_f32, .heads = 32, .queries = 1, .len = 4096, .dim = 128, .kvHeads = 8,
                       .causal = true);
// The GPU decode kernel (lanes split each key's head dim, 16-byte loads) against the rows
// kernel's decode mode, which Auto keeps on CPU drivers.
VKATTN_ATTENTION_BENCH(decode_h32_kv8_lk4096_d128_decode_vs_rows_f32, .heads = 32, .queries = 1, .len = 4096,
                       .dim = 128, .kvHeads = 8, .causal = true, .variant = AttentionVariant::Decode,
                       .against = AttentionVariant::Rows);
VKATTN_ATTENTION_BENCH(decode_h32_kv8_lk4096_d128_decode_vs_rows_f16, .heads = 32, .queries = 1, .len = 4096,
                       .dim = 128, .kvHeads = 8, .causal = true, .dtype = DType::F16,
                       .variant = AttentionVariant::Decode, .against = AttentionVariant::Rows);
VKATTN_ATTENTION_BENCH(decode_h8_lk16384_d128_decode_vs_rows_f32, .heads = 8, .queries = 1, .len = 16384, .dim = 128,
                       .causal = true, .variant = AttentionVariant::Decode, .against = AttentionVariant::Rows);
// The same decode step over a paged cache (blocks of 256 keys, shuffled), against the dense one.
VKATTN_ATTENTION_BENCH(decode_h32_kv8_lk4096_d128_paged256_f32, .heads = 32, .queries = 1, .len = 4096, .dim = 128,
                       .kvHeads = 8, .causal = true, .pageSize = 256);
// The same decode step with K/V stored as bf16, Q8_0 and Q4_0 (fewer bytes, decoded in the kernel),
// against the f32 cache.
VKATTN_ATTENTION_BENCH(decode_h32_kv8_lk4096_d128_kv_bf16, .heads = 32, .queries = 1, .len = 4096, .dim = 128,
                       .kvHeads = 8, .causal = true, .kvDtype = DType::BF16);
VKATTN_ATTENTION_BENCH(decode_h32_kv8_lk4096_d128_kv_q8_0, .heads = 32, .queries = 1, .len = 4096, .dim = 128,
                       .kvHeads = 8, .causal = true, .kvDtype = DType::Q8_0);
VKATTN_ATTENTION_BENCH(decode_h32_kv8_lk4096_d128_kv_q4_0, .heads = 32, .queries = 1, .len = 4096, .dim = 128,
                       .kvHeads = 8, .causal = true, .kvDtype = DType::Q4_0);

// Prefill of 8 sequences of different lengths packed into one call (cuSeqlensQ/K), against one
// call per sequence in the same submission.
void BM_VarlenPrefill(benchmark::State& state, measure::VarlenCase c) {
  bench::report(state, measure::measureVarlenPrefill(bench::context(), c));
}
BENCHMARK_CAPTURE(BM_VarlenPrefill, varlen8_h8_d64_f32,
                  measure::VarlenCase{.lengths = {512, 37, 200, 1, 300, 64, 129, 1000}, .heads = 8, .dim = 64})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
