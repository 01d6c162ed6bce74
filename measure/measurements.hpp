// Verified timing of one kernel on one shape — the one measuring function per kernel that
// `vkattn bench`, `vkattn demo` and the bench/ programs share. The output is compared with the
// double-precision reference under the tolerance table, then the kernel and its baseline (a copy
// of the same bytes for memory-bound kernels, the naive kernel for attention and linear layers)
// are timed in the same process. Rates use the work counts of vkattn/reference/work_counts.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/reference/error_stats.hpp"

namespace vkattn::measure {

struct Measurement {
  std::string kernel, shape;
  reference::ErrorStats error;
  double tolerance = 0.0;                 // the largest allowed |error| over the checked outputs
  double rate = 0.0, baselineRate = 0.0;  // GB/s, or GFLOP/s for attention and linear
  const char* unit = "GB/s";
  const char* baseline = "copy";
  std::string variant;                  // the kernel variant that ran, where there is a choice
  std::string checked = "all outputs";  // what the reference comparison covered
  std::string baselineSkipped;          // why the baseline could not run (baselineRate is then 0)
  std::string skipped;                  // why the kernel itself could not run (nothing measured)
  double medianMs = 0.0;                // the kernel's median time
  double baselineMedianMs = 0.0;
  bool passed() const noexcept { return skipped.empty() && error.failures == 0; }
};

// GB/s of a vec4 device copy that moves `bytes` (half read, half written), the median of `repeats`.
double copyRate(Context& ctx, std::size_t bytes, int repeats);

struct Repeats {
  int kernel = 3;    // timed runs of the kernel (the median is reported)
  int baseline = 3;  // timed runs of the baseline; 0 skips it
};

// softmax, layer_norm or rms_norm on [rows, cols].
Measurement measureRowOp(Context& ctx, const std::string& kernel, int64_t rows, int64_t cols, DType dtype,
                         Repeats repeats = {10, 10});
Measurement measureRope(Context& ctx, int64_t batch, int64_t heads, int64_t len, int64_t dim, DType dtype,
                        Repeats repeats = {10, 10});

struct AttentionCase {
  int64_t batch = 1, heads = 8, queries = 1024, len = 1024, dim = 64;
  int64_t kvHeads = 0;  // K/V heads (GQA / MQA); 0: as many as query heads
  bool causal = false;  // aligned to the bottom-right corner: the queries are the newest tokens
  DType dtype = DType::F32;
  AttentionVariant variant = AttentionVariant::Auto;
  // Keys per block of a paged K/V cache (0: dense K/V). Paged, K and V are scattered over shuffled
  // cache blocks read through a block table, and the baseline is the same call on the dense K/V:
  // the ratio is what paging costs.
  int64_t pageSize = 0;
  // K/V stored as bf16, Q8_0 or Q4_0 (unset: dtype). The output is checked against the reference
  // on the decoded K/V, and the baseline is the same call on dense K/V in dtype: the ratio is what
  // the format gains or costs.
  std::optional<DType> kvDtype;
  // The baseline: the same call on this variant (unset: the naive path, or the dense cache as
  // above), so that two kernels are compared in one process.
  std::optional<AttentionVariant> against;
  // Key splits of the kernels that split the keys (decode, fragment kernels; 0: the runtime's
  // choice), for sweeping the split count on a device; an `against` baseline keeps its own.
  uint32_t keySplits = 0;
};
// Self-attention [batch, heads, len, dim] (decode when queries < len: the last `queries` rows),
// K and V with kvHeads heads.
// Shapes whose double reference would cost more than ~2·10⁹ multiply-adds are checked on 64 query
// rows per head spread over the sequence (first and last included). The naive baseline is
// skipped, with the reason, where its Lq×Lk score matrix exceeds the device's buffer limits; a
// variant the device lacks (coopmat) is reported as skipped.
Measurement measureAttention(Context& ctx, const AttentionCase& c, Repeats repeats = {});

struct VarlenCase {
  std::vector<int32_t> lengths;  // each sequence's tokens: self-attention over them, causal
  int64_t heads = 8, dim = 64;
  DType dtype = DType::F32;
};
// Prefill of a packed batch of sequences of different lengths in one call (cuSeqlensQ/K),
// checked per sequence against the reference (sampled rows past ~2·10⁹ multiply-adds, as above),
// against the same sequences as one attention call each, recorded into one submission.
Measurement measureVarlenPrefill(Context& ctx, const VarlenCase& c, Repeats repeats = {});

// linear y = gelu(x W^T + b), x [m, k], W [n, k], against the naive one-output-per-invocation kernel.
// Past ~2·10⁹ multiply-adds of double reference, 64 rows of y spread over [0, m) are checked.
Measurement measureLinear(Context& ctx, int64_t m, int64_t n, int64_t k, DType dtype,
                          MatmulVariant variant = MatmulVariant::Auto, Repeats repeats = {});

void printHeader();
void printMeasurement(const Measurement& m);

}  // namespace vkattn::measure
