// Scaled dot-product attention on [batch, heads, len, headDim] views (any strides with a
// contiguous head dim, so [batch, len, heads, headDim] works through TensorView::permuted):
//   O = softmax(scale * Q K^T + mask) V,
// fused with the online softmax in fp32, never forming the Lq x Lk score matrix. Q is
// [B, Hq, Lq, Dk], K [B, Hkv, Lk, Dk], V [B, Hkv, Lk, Dv] with Hq % Hkv == 0 (MHA, GQA, MQA: query
// head h reads kv head h / (Hq / Hkv)); O is [B, Hq, Lq, Dv]. Any head dims Dk, Dv in 1..576 on
// the rows and tiled kernels (the fragment kernel takes 16..256 in steps of 8); V may be a view of
// K's buffer. f32 or f16 storage (q, k, v, out alike), or k and v stored as bf16, Q8_0 or Q4_0
// (vkattn/core/storage_formats.hpp; the rows kernel decodes them, the others refuse them naming k);
// compute is always fp32. A packed batch of sequences of different lengths: cuSeqlensQ/K below.
// Beyond masks, the logits can be shaped the way inference engines need (FlashAttention's
// definitions): a softcap, ALiBi slopes and per-head attention sinks.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"
#include "vkattn/ops/attention_options.hpp"

namespace vkattn {

// Fused attention into `out` ([B, Hq, Lq, Dv] view of q's dtype). Throws InvalidArgument naming
// the argument for bad shapes or options, and for NaN in q, k, v or bias (after the run). The
// options have no default here, so that attention(ctx, q, k, v, {}) is the overload below.
void attention(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v, const TensorView& out,
               const AttentionOptions& options);
Tensor attention(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                 const AttentionOptions& options = {});

// The unfused three-pass path: S = scale * Q K^T + mask to memory, softmax (the row op), O = S V.
// Same contract as attention() except lse (not produced); needs B * Hq * Lq * Lk floats of
// scratch. The benchmark baseline and a second opinion in tests. Sinks are refused (argument
// "sinks"): the softmax row op has no extra denominator term.
void attentionNaive(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v, const TensorView& out,
                    const AttentionOptions& options = {});
Tensor attentionNaive(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                      const AttentionOptions& options = {});

// Attention probabilities softmax(scale * q kᵀ + masks) of the chosen query heads (all when
// empty), f32 [B, heads.size(), Lq, Lk]: the scores kernel, then the softmax row op in place. No V
// is needed. Rows whose keys are all masked are zeros. options.lse and options.sinks must be unset.
Tensor attentionWeights(Context& ctx, const TensorView& q, const TensorView& k, const std::vector<int64_t>& heads = {},
                        const AttentionOptions& options = {});

// The variant Auto resolves to on this context (environment override included).
AttentionVariant resolveAttentionVariant(const Context& ctx, AttentionVariant requested);
// The kernel attention() runs for these inputs (checked as attention() checks them): the one asked
// for, else VKATTN_ATTENTION_VARIANT's, else Rows on CPU drivers and on GPUs Decode for Lq <= 8
// (where it takes the inputs), Coopmat where the matrix units take them, Tiled otherwise; K/V
// storage formats and packed batches take Rows, paged caches Rows or Decode.
AttentionVariant attentionVariantFor(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                                     const AttentionOptions& options);
const char* toString(AttentionVariant variant) noexcept;
// The variant named rows (or cpu), tiled (or gpu), coopmat, coopmat2, coopmat2-wg, coopmat-emulated,
// decode or auto; none for any other name (VKATTN_ATTENTION_VARIANT and `vkattn bench attention
// --kernel` take these).
std::optional<AttentionVariant> attentionVariantNamed(std::string_view name) noexcept;
// The names attentionVariantNamed takes, for error messages.
inline constexpr std::string_view kAttentionVariantNames =
    "rows, tiled, coopmat, coopmat2, coopmat2-wg, coopmat-emulated, decode or auto";

}  // namespace vkattn
