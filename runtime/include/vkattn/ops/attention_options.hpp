// What an attention call is asked for: the mask alignment, the kernel family and the options
// (scale, masks, biases, paged or packed K/V, lse), apart from the calls (vkattn/ops/attention.hpp),
// so that code which only reads options (argument checks, planning) does not depend on the calls.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "vkattn/core/tensor.hpp"

namespace vkattn {

// Which diagonal causal masks and sliding windows hang from when Lq != Lk.
enum class MaskAlignment {
  TopLeft,      // query i sees keys j <= i (PyTorch is_causal)
  BottomRight,  // query i sees keys j <= i + (Lk - Lq): the last query is the newest token (decode with a KV cache)
  // Query i of batch b sees keys j <= i + (keyLengths[b] - Lq): each sequence's last query is its
  // own newest token (a batch of caches of different lengths, flash-attn's cache_seqlens). Needs
  // keyLengths.
  BottomRightOfKeyLengths,
};

// Fused kernel families: Rows (several query rows per invocation, no shared memory, no
// barriers: CPU drivers) and Tiled (a workgroup per query block, K/V tiles in shared memory:
// GPUs). Coopmat is FlashAttention-2 style on 16 x 16 matrix fragments: QK^T and PV on tensor
// cores (VK_NV_cooperative_matrix, f16 storage) where DeviceInfo::cooperativeMatrixF16 holds;
// asked for elsewhere it throws Unsupported. CoopmatEmulated runs the same kernel with the
// fragments emulated in plain GLSL (f16 or f32 storage, devices with a fixed subgroup size of 8
// such as lavapipe): slow, there so that CI executes the coopmat kernel's logic; never picked
// automatically. Coopmat2 is FlashAttention-2 on VK_NV_cooperative_matrix2's flexible matrices
// with the softmax done on the matrices (reductions and per-element operations; f16 storage)
// where coopmat2ChoiceFor(info).usable holds. Auto picks Rows or Tiled by ctx.profile(), and on
// GPUs with matrix units (DeviceInfo::cooperativeMatrixF16) Coopmat for inputs it takes (f16, head
// dims 16..256 in steps of 8, dense K/V); Coopmat2 only when asked for. Coopmat2Workgroup is its
// twin on workgroup-scope matrices loaded by tensor addressing (attention_coopmat2_wg.comp; NVIDIA)
// where coopmat2WorkgroupChoiceFor(info).usable holds: written, not yet executed on any device, so
// only when asked for. Decode is the GPU kernel
// for few query rows over many keys (attention_decode.comp: the query heads of a KV head packed
// into one workgroup, lanes splitting each key's head dim, split-K; f32 or f16 with head dims in
// 16-byte words, dense or paged K/V), which Auto picks on GPUs for Lq <= 8; CPU drivers keep the
// rows kernel's decode mode. Overridden by
// VKATTN_ATTENTION_VARIANT=rows|tiled|coopmat|coopmat2|coopmat2-wg|coopmat-emulated|decode.
enum class AttentionVariant { Auto, Rows, Tiled, Coopmat, CoopmatEmulated, Coopmat2, Decode, Coopmat2Workgroup };

struct AttentionOptions {
  // Defaults to 1 / sqrt(Dk); 1.0 gives the plain (Luong) dot product.
  std::optional<float> scale;
  bool causal = false;
  MaskAlignment alignment = MaskAlignment::TopLeft;
  // Sliding window around the aligned diagonal d = i (+ Lk - Lq when BottomRight): query i sees
  // keys d - windowLeft <= j <= d + windowRight. Absent means unbounded on that side; causal
  // caps the right extent at 0.
  std::optional<int64_t> windowLeft;
  std::optional<int64_t> windowRight;
  // i32, nonzero keeps the key; shape [B or 1, Hq or 1, Lq or 1, Lk] (rank 2..4, leading dims
  // broadcast), contiguous.
  std::optional<TensorView> keepMask;
  // f32 added to the scaled logits (-inf removes a key); same shapes as keepMask.
  std::optional<TensorView> bias;
  // i32 [B]: keys j >= keyLengths[b] are padding. The values stay on the device, so they are
  // clamped rather than checked: a length above Lk means Lk, zero or below masks every key (the
  // rows come out as zeros, LSE -inf).
  std::optional<TensorView> keyLengths;
  // Logit softcap c > 0: each scaled logit s becomes c * tanh(s / c) (Gemma 2, Grok) before
  // ALiBi, bias and masks; 0 turns it off. Compiled into the kernel: each distinct value builds
  // its own pipeline once.
  float softcap = 0.0f;
  // f32 [Hq]: head h's sink logit joins every row's softmax denominator without a value row
  // (gpt-oss), so the probabilities of a row sum to less than 1; lse includes it. A row with
  // every key masked gives zeros and lse = the sink.
  std::optional<TensorView> sinks;
  // f32 [Hq] or [B, Hq], contiguous: ALiBi adds -slope * |i + Lk_b - Lq - j| to the scaled
  // (softcapped) logits, Lk_b the batch's key count (keyLengths), whatever the mask alignment.
  std::optional<TensorView> alibiSlopes;
  // Paged K/V cache: i32 [B, maxBlocks], contiguous. k and v are then [numBlocks, Hkv, blockSize,
  // D] views of the cache (flash-attn's [numBlocks, blockSize, Hkv, D] through permuted), and key j
  // of batch b is row j % blockSize of block blockTable[b][j / blockSize], so Lk = maxBlocks *
  // blockSize (keyLengths give each sequence its own length). The block numbers stay on the device
  // and are not checked: one past the cache reads some other row of it, never outside the buffer.
  // The rows and decode kernels read the pages themselves (Auto picks one of them for any Lq);
  // the tiled and fragment kernels and the naive path refuse it.
  std::optional<TensorView> blockTable;
  // A variable-length packed batch (flash-attn's varlen): q is [1, Hq, totalQ, Dk], k and v
  // [1, Hkv, totalK, D], out [1, Hq, totalQ, Dv] and lse [1, Hq, totalQ]; sequence b owns query
  // rows cuSeqlensQ[b] .. cuSeqlensQ[b + 1] - 1 and keys cuSeqlensK[b] .. cuSeqlensK[b + 1] - 1.
  // Both hold B + 1 nondecreasing offsets from 0 to totalQ / totalK (checked here; a sequence may
  // be empty: no query rows, or no keys, which gives zero rows and lse -inf). Every mask applies
  // per sequence: causal and windows from the top-left corner, or with either BottomRight alignment
  // from each sequence's last query at its last key; ALiBi per sequence ([B, Hq] slopes per
  // sequence). One dispatch for the whole batch, in the rows kernel (Auto picks it); the other
  // kernels, the naive path, bias, keepMask, keyLengths and blockTable refuse it by name.
  std::optional<std::vector<int32_t>> cuSeqlensQ, cuSeqlensK;
  // Output, f32 [B, Hq, Lq], contiguous: natural log of sum_j exp(scaled, masked logits);
  // -inf for a row whose keys are all masked (its output row is zeros).
  std::optional<TensorView> lse;
  AttentionVariant variant = AttentionVariant::Auto;
  // Rows, decode and cooperative-matrix variants (the tiled one refuses splits): split the keys over this
  // many workgroups per query block (split-K), each writing a partial (sum, max, sum of exp) that
  // a second pass merges. 0 chooses: split when the key loop would pass the driver's loop limit,
  // or when few query blocks (decode, short prompts over a long cache) leave the device idle over
  // a long key range.
  uint32_t keySplits = 0;
};

}  // namespace vkattn
