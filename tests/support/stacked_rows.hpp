// A decoder step's stacked projection rows [B, L, (Hq + 2 Hkv) D] (queries, keys, values) as the
// RoPE-and-append tests see them (test_rope.cpp's ropeAppend, test_linear_steps.cpp's step after
// linear()): head views, host gathers, positions and head norms in double.
#pragma once

#include <cstdint>
#include <vector>

#include "vkattn/core/tensor.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::test {

struct StackedRows {
  int64_t B, L, Hq, Hkv, D;
  int64_t width() const { return (Hq + 2 * Hkv) * D; }
  // Heads first .. first + count of the rows as [B, count, L, D] (strided view and host copy).
  TensorView heads(const Tensor& t, int64_t first, int64_t count) const {
    return {&t.buffer(), t.dtype(), {B, count, L, D}, {L * width(), D, width(), 1}, first * D};
  }
  std::vector<float> gather(const std::vector<float>& rows, int64_t first, int64_t count) const {
    std::vector<float> out;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < count; ++h)
        for (int64_t l = 0; l < L; ++l)
          for (int64_t d = 0; d < D; ++d)
            out.push_back(rows[static_cast<std::size_t>((b * L + l) * width() + (first + h) * D + d)]);
    return out;
  }
  // A key or value cache [B, capacity, Hkv D]'s rows start .. start + L as [B, Hkv, L, D]
  // (inside), or every other row (not inside).
  std::vector<float> cacheRows(const std::vector<float>& cache, int64_t capacity, int64_t start, bool inside) const {
    std::vector<float> out;
    const int64_t kvWidth = Hkv * D;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < Hkv; ++h)
        for (int64_t r = 0; r < capacity; ++r)
          if ((r >= start && r < start + L) == inside)
            for (int64_t d = 0; d < D; ++d)
              out.push_back(cache[static_cast<std::size_t>((b * capacity + r) * kvWidth + h * D + d)]);
    return out;
  }
};

// Position offset + l of every (b, l), as ropeRef takes them.
inline std::vector<int64_t> offsetPositions(std::size_t B, std::size_t L, int64_t offset) {
  std::vector<int64_t> p(B * L);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t l = 0; l < L; ++l) p[b * L + l] = offset + static_cast<int64_t>(l);
  return p;
}

// RMSNorm of each D-long head of [B, H, L, D] by weight (double), rounded to float.
inline std::vector<float> headNormed(const std::vector<float>& heads, int64_t D, const std::vector<float>& weight,
                                     double eps) {
  const std::vector<double> d = reference::rmsNormRef(heads, static_cast<std::size_t>(D), &weight, eps);
  return {d.begin(), d.end()};
}

}  // namespace vkattn::test
