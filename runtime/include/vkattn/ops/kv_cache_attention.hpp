// Attention over key/value caches as flash-attn's flash_attn_with_kvcache does it: a batch of
// query rows, each sequence against the keys its cache holds so far, new keys and values written
// into the caches first. The caches are dense (a row of the cache per sequence) or paged (blocks
// named by a block table); sequences have their own lengths, and with left padding their keys
// start further in. Also flash-attn's rotary embedding by cos/sin tables, on the host.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/ops/attention_options.hpp"

namespace vkattn {

// Where the batch's sequences live in caches of shape [N, S, Hkv, D].
struct KvCacheLayout {
  // Dense caches: sequence b is cache row rows[b] (flash-attn's cache_batch_idx); empty: row b.
  std::vector<int32_t> rows;
  // Paged caches: sequence b's keys fill blocks blockTable[b * maxBlocks ..] in order, S keys each
  // (S is the block size). Empty: dense.
  std::vector<int32_t> blockTable;
  int64_t maxBlocks = 0;
};

struct KvCacheAttentionOptions {
  // Scale, causal, windows, softcap, ALiBi ([Hq] or [B, Hq] slopes), sinks, lse ([B, Hq, Lq]),
  // variant and key splits as for attention(). Masks hang from each sequence's last key (its
  // newest token) whatever `alignment` says; keyLengths and blockTable come from the lengths and
  // the layout, so they, keepMask, bias and the packed batch must be left unset.
  AttentionOptions attention;
  KvCacheLayout layout;
  // Keys each sequence's cache holds before the call; empty: every one full (S, or maxBlocks * S).
  std::vector<int64_t> lengths;
  // Dense caches only: sequence b's keys start at cache position leftPad[b] (left padding); masks
  // and ALiBi count its keys from there. Empty: 0.
  std::vector<int64_t> leftPad;
  // New rows [B, Lnew, Hkv, D] and [B, Lnew, Hkv, Dv], contiguous, in the caches' dtype: written
  // into the caches at lengths[b] .. lengths[b] + Lnew - 1 before attending (the caches must then
  // be contiguous). Given together or not at all.
  std::optional<TensorView> newK, newV;
};

// The cache slot (cache row or block, times S, plus the offset in it) that holds sequence b's key
// at `position`, for caches of S = `slots` keys per row or block.
int64_t kvCacheSlot(const KvCacheLayout& layout, int64_t b, int64_t position, int64_t slots);

// q [B, Lq, Hq, D] and out [B, Lq, Hq, Dv] (flash-attn's layout); kCache [N, S, Hkv, D] and
// vCache [N, S, Hkv, Dv] in one dtype (q's, or a K/V storage format). Sequence b's query rows see
// its keys leftPad[b] .. lengths[b] + Lnew - 1. Throws InvalidArgument naming the argument.
void kvCacheAttention(Context& ctx, const TensorView& q, const TensorView& kCache, const TensorView& vCache,
                      const TensorView& out, const KvCacheAttentionOptions& options);

// flash-attn's rotary embedding by tables: cos and sin [rows, half], row p the angles of position
// p. Row (b, l) of x [B, L, H, D] (contiguous floats, turned in place) turns by table row
// position(b, l) its pairs (i, i + half) (GPT-NeoX) or (2i, 2i + 1) (interleaved, GPT-J) of the
// first 2 * half features; the rest stay. InvalidArgument names "cos" when a position has no row.
struct RotaryTables {
  std::span<const float> cos, sin;
  int64_t rows = 0, half = 0;
};
void rotateByTables(std::span<float> x, const Shape& blhd, const RotaryTables& tables, bool interleaved,
                    const std::function<int64_t(int64_t b, int64_t l)>& position);

}  // namespace vkattn
