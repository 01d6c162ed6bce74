// Rotary position embedding on [batch, heads, seq, headDim] views (any strides, so the
// [batch, seq, heads, headDim] layout works through TensorView::permuted).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn {

struct RopeOptions {
  double theta = 10000.0;
  // Pairs (2i, 2i+1) as in RoFormer / seed 002's complex form when true; (i, i + rotaryDim/2)
  // (rotate_half, HF/NeoX) when false.
  bool interleaved = false;
  // Leading features rotated; 0 means the whole head dim. Must be even and <= headDim.
  int64_t rotaryDim = 0;
  // i32 positions of shape [seq] or [batch, seq]; when absent, position = positionOffset + l.
  std::optional<TensorView> positions;
  int64_t positionOffset = 0;
  // Divisors of each pair's frequency theta^(-2i/rotaryDim), rotaryDim / 2 of them, finite and
  // > 0: Llama 3's rope_freqs and linear position scaling (every divisor the scale factor).
  // Empty means 1 for every pair.
  std::vector<double> frequencyDivisors;
};

// y = rope(x). x and y are [batch, heads, seq, headDim] views of the same shape and dtype.
void rope(Context& ctx, const TensorView& x, const TensorView& y, const RopeOptions& options = {});
Tensor rope(Context& ctx, const TensorView& x, const RopeOptions& options = {});

// Rotates queries and keys with the same positions; q and k may have different head counts (GQA)
// but must agree on batch, seq and headDim. Runs as one submission.
void ropeQK(Context& ctx, const TensorView& q, const TensorView& qOut, const TensorView& k, const TensorView& kOut,
            const RopeOptions& options = {});

// RMSNorm of each query head by `q` and of each key head by `k` before the rotation (Qwen3's and
// Gemma 3's head norms): weights [headDim] of the heads' dtype, contiguous from their buffers'
// start.
struct HeadNorms {
  TensorView q, k;
  float eps = 1e-6f;
};

// A decoder step after its stacked q/k/v projection, in one dispatch: q rotated in place, k
// rotated into keysOut, v copied into valuesOut (a key/value cache's newest rows); with
// headNorms, q's and k's heads normalized first. q [B, Hq, L, D] and k, v [B, Hkv, L, D] (any
// Hq, Hkv) are views of one f32 or f16 buffer, the projection's rows; keysOut and valuesOut have
// k's shape and dtype and lie in other buffers. Positions are options.positionOffset + l, or
// options.positions ([L] or [B, L], i32 on the device); with positions given, keysOut and valuesOut
// may instead be whole caches [B, Hkv, capacity, D] whose row p receives the key and value at
// position p (a decode step recorded once and replayed at every position; Replay), and a
// position outside [0, capacity) is reported naming positions. Every view's head dim is
// contiguous. NaN in q, k, v or the norms' weights is reported naming it.
void ropeAppend(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v, const TensorView& keysOut,
                const TensorView& valuesOut, const RopeOptions& options = {},
                const std::optional<HeadNorms>& headNorms = std::nullopt);

// The per-pair phase steps the kernel uses: frac(theta^(-2i/rotaryDim) / divisor_i / 2pi) * 2^64,
// split into (high, low) 32-bit words. Exposed for tests.
std::vector<uint32_t> ropePhaseSteps(double theta, int64_t rotaryDim, std::span<const double> divisors = {});

}  // namespace vkattn
