// Row operations over the last dimension: softmax, log_softmax, LayerNorm, RMSNorm, argmax,
// drawing tokens.
// Inputs are contiguous f32 or f16 tensors; outputs have the input's shape and dtype (in place is
// allowed), argmax's and sampleTokens' the input's shape without its last dim, in int32.
#pragma once

#include <optional>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"

namespace vkattn {

struct SoftmaxOptions {
  float scale = 1.0f;
  // Additive f32 mask whose shape broadcasts to x's (numpy rules, rank <= 4, last dim equal).
  // -inf removes a column; a row with every column removed comes out as zeros.
  std::optional<TensorView> mask;
};

struct LayerNormOptions {
  std::optional<TensorView> weight;  // [cols], x's dtype
  std::optional<TensorView> bias;    // [cols], x's dtype
  float eps = 1e-5f;
};

struct RmsNormOptions {
  std::optional<TensorView> weight;  // [cols], x's dtype
  float eps = 1e-6f;
  // Added to the norm: y = residual + rmsNorm(x) (a post-norm model's x + norm(sublayer(x)) in one
  // pass). x's shape and dtype; it may be y itself.
  std::optional<TensorView> residual;
};

void softmax(Context& ctx, const TensorView& x, const TensorView& y, const SoftmaxOptions& options = {});
Tensor softmax(Context& ctx, const TensorView& x, const SoftmaxOptions& options = {});

struct LogSoftmaxOptions {
  float scale = 1.0f;  // x's multiplier (1 / temperature): finite and > 0
};

// y = log_softmax(scale * x) along the last dim (torch.log_softmax): each row's log-probabilities,
// scale * x - log(sum exp(scale * x)), in one read of x and one write. A -inf in x stays -inf (a
// row of -inf alone comes out as -inf); NaN or +inf in x is reported naming x. Rank 1..8.
void logSoftmax(Context& ctx, const TensorView& x, const TensorView& y, const LogSoftmaxOptions& options = {});
Tensor logSoftmax(Context& ctx, const TensorView& x, const LogSoftmaxOptions& options = {});

void layerNorm(Context& ctx, const TensorView& x, const TensorView& y, const LayerNormOptions& options = {});
Tensor layerNorm(Context& ctx, const TensorView& x, const LayerNormOptions& options = {});

void rmsNorm(Context& ctx, const TensorView& x, const TensorView& y, const RmsNormOptions& options = {});
Tensor rmsNorm(Context& ctx, const TensorView& x, const RmsNormOptions& options = {});

// ids[...] = the index of the largest value along x's last dim, the lowest index among equal
// values (a language model's greedy next token, as TokenSampler picks it); a row of -inf gives 0.
// ids: int32 of x's shape without its last dim (a scalar shape [1] for a 1-d x), contiguous. NaN
// in x is reported naming x.
void argmax(Context& ctx, const TensorView& x, const TensorView& ids);
Tensor argmax(Context& ctx, const TensorView& x);

// How sampleTokens draws (SamplerOptions without the seed, plus Gemma 2's final softcap).
struct TokenDraw {
  float temperature = 0.0f;  // 0: the most likely token (ties: the lowest id)
  int64_t topK = 0;          // 0: every token
  float topP = 1.0f;         // in (0, 1]
  float softcap = 0.0f;      // > 0: logits l become softcap * tanh(l / softcap) first
};

// Throws InvalidArgument naming temperature (finite, >= 0), topK (>= 0), topP (in (0, 1]) or
// softcap (finite, >= 0) when `draw` holds a value out of range: the one check of sampling
// settings, for the device's draw and the host's.
void requireTokenDraw(const TokenDraw& draw);

// ids[r] = the token TokenSampler draws from logits row r with the uniform number uniforms[r]:
// the softmax of logits / temperature over the topK most likely tokens, cut to the shortest prefix
// (by descending logit, ties to the lower id) whose probability reaches topP, and the token where
// u times the kept mass falls in that prefix's running sum (weights in f32: a draw within about
// 1e-6 of a boundary between two tokens may pick the other one). logits: [rows, vocab] f32;
// uniforms: [rows] f32 in [0, 1); ids: [rows] int32; each contiguous. The device sorts the
// kSampleCandidates most likely tokens of a row: ids[r] = -1 where the draw lands beyond them, or
// where 1024 < topK < vocab leaves the kept mass unknown; the caller then draws that row on the
// host with the same number. NaN in logits is reported naming logits, a number outside [0, 1)
// naming uniforms.
inline constexpr int64_t kSampleCandidates = 1024;
void sampleTokens(Context& ctx, const TensorView& logits, const TensorView& uniforms, const TensorView& ids,
                  const TokenDraw& draw);

// y = x, elementwise, for same-sized tensors whose byte size is a multiple of 16: the memory
// bandwidth baseline of the benchmarks.
void copy(Context& ctx, const TensorView& x, const TensorView& y);

}  // namespace vkattn
