// A multi-head attention layer as in the documents' MultiHeadAttention / GroupedQueryAttention
// classes: q/k/v/o projections (torch.nn.Linear layout), kvHeads key/value heads shared by
// heads / kvHeads query heads each (MHA, GQA, MQA), optional RoPE on queries and keys, self or
// cross input, and a key/value cache for incremental decoding. Activations are contiguous
// [L, modelDim] or [B, L, modelDim] tensors of f32.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/ops/rope.hpp"

namespace vkattn {

struct AttentionLayerConfig {
  int64_t modelDim = 0;
  int64_t heads = 0;
  int64_t kvHeads = 0;  // 0 means heads (MHA); 1 is MQA
  int64_t headDim = 0;  // 0 means modelDim / heads
  // Rotates queries and keys by their positions (keys when they enter the cache).
  std::optional<RopeOptions> rope;
  // With AttentionLayerWeights::qNorm / kNorm: the RMSNorm epsilon of each query and key head.
  float headNormEps = 1e-6f;
  // The logits' scale (default 1 / sqrt(headDim)) and softcap (c > 0: each scaled logit s becomes
  // c tanh(s / c); 0: none), as AttentionOptions::scale and softcap.
  std::optional<float> scale;
  float softcap = 0.0f;
  // A sliding window: each query sees itself and the window - 1 positions before it (as far as
  // the mask allows); 0 means every position.
  int64_t window = 0;
};

// Weights in torch.nn.Linear layout: q [heads*headDim, modelDim], k and v [kvHeads*headDim,
// modelDim], o [modelDim, heads*headDim]; biases optional. Or q, k and v stacked in `qkv`
// [(heads + 2 kvHeads) headDim, modelDim] (q, k and v then left empty; their biases, if any,
// stacked in qkvBias): one product projects all three, and selfAttend() runs a step in fewer
// dispatches.
struct AttentionLayerWeights {
  Tensor q, k, v, o;
  std::optional<Tensor> qBias, kBias, vBias, oBias;
  std::optional<Tensor> qkv, qkvBias;
  // [headDim] each: RMSNorm of every query and key head after the projection, before the
  // rotation (Qwen3, Gemma 3).
  std::optional<Tensor> qNorm, kNorm;
};

// Projected keys and values of up to `capacity` positions, in [B, capacity, kvHeads, headDim],
// stored as f32 or in a K/V storage format (bf16, Q8_0, Q4_0: encoded on the device as they are
// appended; the block formats need a head dim that is a multiple of 32).
class KeyValueCache {
 public:
  KeyValueCache(const Context& ctx, int64_t batch, int64_t capacity, int64_t kvHeads, int64_t headDim,
                DType format = DType::F32);

  int64_t length() const noexcept { return m_length; }
  int64_t capacity() const noexcept { return m_capacity; }
  DType format() const noexcept { return m_keys.dtype; }
  void clear() noexcept { m_length = 0; }
  // [B, kvHeads, length, headDim] views of what the cache holds.
  TensorView keys() const;
  TensorView values() const;

 private:
  friend class MultiHeadAttention;
  // Storage borrowed from ctx.scratch(): a one-call cache that survives an open Batch.
  static KeyValueCache scratch(Context& ctx, int64_t batch, int64_t capacity, int64_t kvHeads, int64_t headDim);
  KeyValueCache(int64_t batch, int64_t capacity, int64_t kvHeads, int64_t headDim);
  static TensorView rows(const TensorView& t, int64_t start, int64_t count);  // [B, count, kvHeads*headDim]
  std::unique_ptr<Tensor> m_ownedKeys;  // heap-held so the views survive moving the cache
  std::unique_ptr<Tensor> m_ownedValues;
  TensorView m_keys;  // [B, capacity, kvHeads*headDim]
  TensorView m_values;
  int64_t m_batch, m_capacity, m_kvHeads, m_headDim;
  int64_t m_length = 0;
};

struct AttentionLayerCall {
  // Each query sees keys up to its own position; queries are the newest positions (bottom-right
  // alignment), so incremental decoding and a full pass agree.
  bool causal = false;
  std::optional<TensorView> keepMask;    // as AttentionOptions::keepMask
  std::optional<TensorView> bias;        // as AttentionOptions::bias
  std::optional<TensorView> keyLengths;  // as AttentionOptions::keyLengths
  // out = layer output + residual (same shape as out): the block's skip connection, fused into o.
  std::optional<TensorView> residual;
  // out = postNorm.residual + rmsNorm(layer output) * postNorm.weight: a post-norm model's skip
  // connection (Gemma), run by o's product where its kernel allows (LinearOptions::postNorm).
  // Excludes residual.
  std::optional<PostNormStep> postNorm;
  // Receives the attention probabilities, f32 [B, weightHeads.size() or heads, Lq, Lk]. Those
  // heads' scores are computed once: their softmax is kept and multiplied by V for the output,
  // the other heads run the fused kernel.
  Tensor* weights = nullptr;
  // The query heads whose probabilities `weights` receives, in this order (all when empty).
  // InvalidArgument("weightHeads") for a head out of range or named twice.
  std::vector<int64_t> weightHeads;
  // x is normalized by this RMSNorm before the query projection (a decoder's pre-norm; see
  // LinearOptions::inputNorm: folded into the projection where its kernel takes it).
  std::optional<InputRmsNorm> inputNorm;
  // selfAttend as a step recorded once and replayed (vkattn::Replay): the new rows' positions,
  // i32 [L] on the device, which are also the cache rows their keys and values land in, with
  // keyLengths holding the cache's length after them; attention reads that many keys of the
  // whole cache. The host still counts the cache's length (it grows by L per call). Layers with
  // one q/k/v product, RoPE without a positions table and an f32 cache only (else Unsupported).
  std::optional<TensorView> positions;
};

class MultiHeadAttention {
 public:
  MultiHeadAttention(const Context& ctx, const AttentionLayerConfig& config, AttentionLayerWeights weights);

  const AttentionLayerConfig& config() const noexcept { return m_config; }

  // out = o(attention(q(x), k(source), v(source))): self-attention when source is x.
  void forward(Context& ctx, const TensorView& x, const TensorView& source, const TensorView& out,
               const AttentionLayerCall& call = {});
  Tensor forward(Context& ctx, const TensorView& x, const TensorView& source, const AttentionLayerCall& call = {});

  // Projects source's keys and values (RoPE at positions cache.length() ...) onto the cache's end;
  // source normalized by `inputNorm` first where given (as AttentionLayerCall::inputNorm).
  void append(Context& ctx, const TensorView& source, KeyValueCache& cache,
              const std::optional<InputRmsNorm>& inputNorm = std::nullopt);
  // Queries of x (the newest positions when causal) against every key the cache holds.
  void attend(Context& ctx, const TensorView& x, const KeyValueCache& cache, const TensorView& out,
              const AttentionLayerCall& call = {});
  // Whether selfAttend takes AttentionLayerCall::positions with this cache (a step to replay): one
  // q/k/v product, RoPE without a positions table or offset, an f32 cache.
  bool replaysSelfAttention(const KeyValueCache& cache) const noexcept;
  // A decoder's self-attention step: x's rows become the cache's newest positions and attend to
  // everything it holds, as append(x, call.inputNorm) then attend(x, call) do. With stacked
  // weights, RoPE and an f32 cache, that is one product for q, k and v and one dispatch for the
  // head norms (both or none), RoPE and the cache append (ropeAppend) before the attention and o.
  void selfAttend(Context& ctx, const TensorView& x, KeyValueCache& cache, const TensorView& out,
                  const AttentionLayerCall& call = {});

  KeyValueCache makeCache(const Context& ctx, int64_t batch, int64_t capacity, DType format = DType::F32) const;
  const AttentionLayerWeights& weights() const noexcept { return m_weights; }
  // The q, k and v projections' weights (views of qkv where stacked).
  TensorView qWeight() const;
  TensorView kWeight() const;
  TensorView vWeight() const;

 private:
  // The projections' weights and biases, as views of the stacked ones where they are stacked.
  TensorView projection(int64_t first, int64_t rows, const Tensor& own) const;
  std::optional<TensorView> projectionBias(int64_t first, int64_t rows, const std::optional<Tensor>& own) const;
  // The rotated (and head-normed) queries of x into queries [B, L, heads * headDim].
  void projectQueries(Context& ctx, const TensorView& x, const KeyValueCache& cache, const TensorView& queries,
                      const AttentionLayerCall& call);
  // Attention of q [B, heads, L, headDim] over the cache, then o into out.
  // With call.positions: against the whole cache, call.keyLengths keys of it.
  void attendQueries(Context& ctx, const TensorView& q, const KeyValueCache& cache, const TensorView& out,
                     const TensorView& outIn, const AttentionLayerCall& call);

  AttentionLayerConfig m_config;
  AttentionLayerWeights m_weights;
};

}  // namespace vkattn
