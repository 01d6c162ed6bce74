// Shared by the attention test programs: the kernel paths a case runs on, random inputs for an
// AttentionProblem, and one check of a path's output (and lse) against the double reference with
// the documented tolerances.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/reference/attention_reference.hpp"
#include "vkattn/reference/tolerances.hpp"

namespace vkattn::test {

extern const reference::Tolerance kWeights;
extern const double kAtolF32, kRtolF32, kAtolF16, kRtolF16, kAtolLse, kRtolLse;

enum class Path { Rows, Tiled, Naive, Coopmat, CoopmatEmulated, Coopmat2, Coopmat2Workgroup, Decode };
const char* pathName(Path p);
AttentionVariant variantOf(Path p);

// The kernels a case runs on: the fused rows and tiled variants (and the naive path), the
// cooperative-matrix kernel on the device's matrix units (f16 only: check() runs an f32 case
// on f16-rounded copies of its inputs), that kernel built with emulated fragments, or the
// cooperative-matrix-2 kernel or its workgroup-scope twin (f16 only, as Coopmat), or the GPU decode kernel (f32 and
// f16, head dims in 16-byte words; it takes any query count, so every case exercises it). The parameter names starting
// with "kernel_" give `vkattn conformance` a table row of their own.
enum class Family { Fused, Coopmat, CoopmatEmulated, Coopmat2, Coopmat2Workgroup, Decode };

// Whether a path runs on the matrix units, which take f16 alone (check() runs an f32 case on
// f16-rounded copies there).
bool onMatrixUnits(Path p);
std::string familyName(Family f);

// Whether this device can run the emulated fragments (compiled for fixed 8-lane subgroups).
bool emulatedFragmentsRun(const Context& ctx);

// Why `family` cannot run on this device, or empty when it can.
std::string familySkipReason(const Context& ctx, Family family);

std::vector<Path> pathsOf(Family family, bool naive = true);

struct Inputs {
  std::vector<float> q, k, v;
  Tensor tq, tk, tv;
  // What the fused paths read instead of tk and tv when set: views of a paged cache (the host k
  // and v stay the dense reference inputs).
  std::optional<TensorView> kRead, vRead;
};

// q, k, v uniform in [-range, range] (rounded to f16 values for f16), on the host and the device.
Inputs makeInputs(Context& ctx, const reference::AttentionProblem& pr, DType dtype, uint64_t seed, float range = 1.0f);

// The options that describe `pr`'s scale, causal / window settings and softcap (masks, sinks and
// ALiBi slopes are device tensors the caller adds).
AttentionOptions optionsFor(const reference::AttentionProblem& pr);

// -inf (a fully masked row's lse) as a large finite number, so allClose can compare it.
std::vector<double> finiteLse(std::vector<double> x);
std::vector<float> finiteLse(std::vector<float> x);

// Runs one path on (pr, inputs, options) and checks out (and lse for fused paths) against the
// reference; scale of the reference is the option's (pr.scale). The absolute tolerance is scaled by
// `valueRange` when v was drawn from a wider range than [-1, 1]: the output is a convex combination
// of v's rows, so its absolute error scales with them.
void check(Context& ctx, Path path, const reference::AttentionProblem& pr, const Inputs& in, AttentionOptions o,
           DType dtype, double valueRange = 1.0);

// k and v of `in` stored as `format` (bf16, Q8_0, Q4_0); the reference then reads their decoded
// values.
void storeKvAs(Context& ctx, Inputs& in, DType format);

// Sinks and ALiBi slopes of a problem, on the host (for the reference) and the device.
struct HeadTerms {
  std::vector<float> sinks, slopes;
  Tensor tSinks, tSlopes;
};

// Adds sinks (one per query head, drawn from [-2, 3]) and/or ALiBi slopes (FlashAttention's
// geometric series 2^(-8 (h + 1) / H), per head or per batch and head) to `pr` and `o`.
void addHeadTerms(Context& ctx, reference::AttentionProblem& pr, AttentionOptions& o, HeadTerms& t, bool sinks,
                  bool alibi, bool alibiPerBatch = false);

// A paged copy of `in`'s dense K/V (reference::pageCache: shuffled blocks, three spare ones of
// large values that must never be read), read through in.kRead / in.vRead; returns the i32
// [B, maxBlocks] block table.
Tensor pageInputs(Context& ctx, const reference::AttentionProblem& pr, Inputs& in, std::size_t blockSize, DType dtype,
                  uint64_t seed);

void checkAll(Context& ctx, const std::vector<Path>& paths, const reference::AttentionProblem& pr, uint64_t seed,
              DType dtype = DType::F32);

reference::AttentionProblem problem(std::size_t b, std::size_t hq, std::size_t hkv, std::size_t lq, std::size_t lk,
                                    std::size_t dk, std::size_t dv);

}  // namespace vkattn::test
