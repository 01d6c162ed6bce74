// The primitives the composite references (attention layer, language model) and the op references
// share, one definition each, so the oracles cannot drift apart: a projection x W^T + b, an RMSNorm
// row and a RoPE rotation of one head vector, in double precision over float or double inputs.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vkattn::reference {

// y[rows, out] = x[rows, in] W^T (+ bias[out] when not empty), W row-major [out, in].
template <typename T>
std::vector<double> projectRows(const std::vector<T>& x, int64_t rows, int64_t in, const std::vector<float>& w,
                                int64_t out, const std::vector<float>& bias) {
  std::vector<double> y(static_cast<std::size_t>(rows * out));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < out; ++o) {
      double sum = bias.empty() ? 0.0 : bias[static_cast<std::size_t>(o)];
      for (int64_t i = 0; i < in; ++i)
        sum += static_cast<double>(x[static_cast<std::size_t>(r * in + i)]) * w[static_cast<std::size_t>(o * in + i)];
      y[static_cast<std::size_t>(r * out + o)] = sum;
    }
  return y;
}

// y[c] = x[c] / sqrt(mean(x^2) + eps) * weight[c] (weight 1 where null) over one row of `cols`.
template <typename T>
void rmsNormRow(const T* x, double* y, std::size_t cols, double eps, const float* weight) {
  double squares = 0.0;
  for (std::size_t c = 0; c < cols; ++c) squares += static_cast<double>(x[c]) * x[c];
  const double scale = 1.0 / std::sqrt(squares / static_cast<double>(cols) + eps);
  for (std::size_t c = 0; c < cols; ++c) y[c] = x[c] * scale * (weight ? weight[c] : 1.0);
}

// RoPE of one head vector in place at `position`: pair i, (i, i + rotaryDim / 2) (rotate_half) or
// (2i, 2i + 1) (interleaved), turns by position * theta^(-2i / rotaryDim) / divisors[i] (divisors
// when not empty); features past rotaryDim stay.
inline void rotateHead(double* head, std::size_t rotaryDim, bool interleaved, double theta, double position,
                       const std::vector<double>& divisors = {}) {
  const std::size_t half = rotaryDim / 2;
  for (std::size_t i = 0; i < half; ++i) {
    const double freq = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(rotaryDim)) /
                        (divisors.empty() ? 1.0 : divisors[i]);
    const double angle = position * freq;
    const std::size_t i0 = interleaved ? 2 * i : i, i1 = interleaved ? 2 * i + 1 : i + half;
    const double a = head[i0], c = head[i1];  // (a + ic) * e^{i angle}
    head[i0] = a * std::cos(angle) - c * std::sin(angle);
    head[i1] = c * std::cos(angle) + a * std::sin(angle);
  }
}

}  // namespace vkattn::reference
