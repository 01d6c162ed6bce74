// Verified timing of one kernel on one shape: the output is compared with the double-precision
// reference, then the kernel and its baseline (a copy of the same bytes for memory-bound kernels,
// the naive 3-pass path for attention) are timed in the same process. Shared by demo and bench.
#pragma once

#include <string>

#include "support/error_stats.hpp"
#include "vkattn/context.hpp"

namespace vkattn::cli {

struct Measurement {
  std::string kernel, shape;
  test::ErrorStats error;
  double tolerance = 0.0;
  double rate = 0.0, baselineRate = 0.0;  // GB/s, or GFLOP/s for attention
  const char* unit = "GB/s";
  const char* baseline = "copy";
  std::string variant;                 // the kernel variant that ran, where there is a choice
  std::string checked = "all outputs";  // what the reference comparison covered
  std::string baselineSkipped;          // why the baseline could not run (baselineRate is then 0)
  double medianMs = 0.0;                // the kernel's median time
};

// softmax, layer_norm or rms_norm on [rows, cols].
Measurement measureRowOp(Context& ctx, const std::string& kernel, int64_t rows, int64_t cols, DType dtype);
Measurement measureRope(Context& ctx, int64_t batch, int64_t heads, int64_t len, int64_t dim, DType dtype);
// Self-attention [batch, heads, len, dim] (decode when queries < len: the last `queries` rows).
// Shapes whose double reference would cost more than ~2·10⁹ multiply-adds are checked on 64 query
// rows per head spread over the sequence (first and last included). The naive baseline is
// skipped, with the reason, where its Lq×Lk score matrix exceeds the device's buffer limits.
Measurement measureAttention(Context& ctx, int64_t batch, int64_t heads, int64_t queries, int64_t len, int64_t dim,
                             bool causal, DType dtype);

// linear y = gelu(x W^T + b), x [m, k], W [n, k], against the naive one-output-per-invocation kernel.
Measurement measureLinear(Context& ctx, int64_t m, int64_t n, int64_t k, DType dtype);

void printHeader();
void printMeasurement(const Measurement& m);

}  // namespace vkattn::cli
