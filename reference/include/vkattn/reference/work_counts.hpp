// The one count of work per kernel, for rates: FLOPs of attention and matrix products, bytes
// moved by memory-bound kernels. `vkattn bench`, `vkattn demo` and bench/ all divide these by
// their times, so a figure means the same wherever it is printed.
#pragma once

#include <cstdint>

namespace vkattn::reference {

// Query/key pairs that attention computes: every pair, or with a causal mask only the keys at or
// before each query (aligned to the bottom-right corner when `bottomRight`, so a query row
// i sees keys j <= i + Lk - Lq; top-left: j <= i). A decode step (Lq = 1, bottom-right) sees
// every key: nothing is halved.
double attentionPairs(int64_t lq, int64_t lk, bool causal, bool bottomRight);

// 2·Dk (Q Kᵀ) + 2·Dv (P V) FLOPs per visible pair, for batch × heads (query heads).
double attentionFlops(int64_t batch, int64_t heads, int64_t lq, int64_t lk, int64_t dk, int64_t dv, bool causal,
                      bool bottomRight);

// 2·M·N·K for a matrix product [M, K] x [K, N].
double matmulFlops(int64_t m, int64_t n, int64_t k);

// A row kernel (softmax, norms, RoPE) reads its input and writes its output once.
double rowKernelBytes(int64_t elements, int64_t elementBytes);

}  // namespace vkattn::reference
