#include "vkattn/reference/work_counts.hpp"

#include <algorithm>

namespace vkattn::reference {

double attentionPairs(int64_t lq, int64_t lk, bool causal, bool bottomRight) {
  if (!causal) return static_cast<double>(lq) * static_cast<double>(lk);
  const int64_t shift = bottomRight ? lk - lq : 0;  // query i sees keys j <= i + shift
  // Rows with i + shift + 1 in [1, lk) see i + shift + 1 keys; later rows see all lk; earlier none.
  const int64_t firstSeeing = std::max<int64_t>(0, -shift);              // first row that sees a key
  const int64_t firstFull = std::clamp<int64_t>(lk - 1 - shift, 0, lq);  // first row that sees every key
  double pairs = 0.0;
  if (firstFull > firstSeeing) {
    const double a = static_cast<double>(firstSeeing + shift + 1), b = static_cast<double>(firstFull - 1 + shift + 1);
    pairs += (a + b) * static_cast<double>(firstFull - firstSeeing) / 2.0;
  }
  pairs += static_cast<double>(std::max<int64_t>(0, lq - std::max(firstFull, firstSeeing))) * static_cast<double>(lk);
  return pairs;
}

double attentionFlops(int64_t batch, int64_t heads, int64_t lq, int64_t lk, int64_t dk, int64_t dv, bool causal,
                      bool bottomRight) {
  return 2.0 * static_cast<double>(dk + dv) * static_cast<double>(batch) * static_cast<double>(heads) *
         attentionPairs(lq, lk, causal, bottomRight);
}

double matmulFlops(int64_t m, int64_t n, int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

double rowKernelBytes(int64_t elements, int64_t elementBytes) {
  return 2.0 * static_cast<double>(elements) * static_cast<double>(elementBytes);
}

}  // namespace vkattn::reference
