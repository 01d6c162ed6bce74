// Memory-bound kernels (softmax, LayerNorm, RMSNorm, RoPE) in GB/s of compulsory traffic (input
// read once, output written once), each case verified against the double-precision reference
// first, and reported as a ratio to a plain vec4 copy of the same bytes in the same process. The
// measuring code is measure/measurements.cpp, shared with `vkattn bench`.
#include "report.hpp"

namespace {

using namespace vkattn;

void BM_RowOp(benchmark::State& state, const char* kernel, DType dtype) {
  bench::report(state, measure::measureRowOp(bench::context(), kernel, state.range(0), state.range(1), dtype));
}

void BM_Rope(benchmark::State& state, DType dtype) {
  bench::report(state,
                measure::measureRope(bench::context(), 1, state.range(0), state.range(1), state.range(2), dtype));
}

void rowShapes(benchmark::internal::Benchmark* b) {
  b->Args({4096, 1024})
      ->Args({1024, 4096})
      ->Args({64, 65536})
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
}

BENCHMARK_CAPTURE(BM_RowOp, softmax_f32, "softmax", DType::F32)->Apply(rowShapes);
BENCHMARK_CAPTURE(BM_RowOp, softmax_f16, "softmax", DType::F16)->Apply(rowShapes);
BENCHMARK_CAPTURE(BM_RowOp, layer_norm_f32, "layer_norm", DType::F32)->Apply(rowShapes);
BENCHMARK_CAPTURE(BM_RowOp, layer_norm_f16, "layer_norm", DType::F16)->Apply(rowShapes);
BENCHMARK_CAPTURE(BM_RowOp, rms_norm_f32, "rms_norm", DType::F32)->Apply(rowShapes);
BENCHMARK_CAPTURE(BM_RowOp, rms_norm_f16, "rms_norm", DType::F16)->Apply(rowShapes);
BENCHMARK_CAPTURE(BM_Rope, f32, DType::F32)
    ->Args({32, 1024, 128})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Rope, f16, DType::F16)
    ->Args({32, 1024, 128})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
