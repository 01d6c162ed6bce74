#include "vkattn/reference/reference.hpp"

#include <cmath>
#include <limits>
#include <random>

#include "vkattn/core/half.hpp"
#include "vkattn/reference/primitives.hpp"

namespace vkattn::reference {

std::vector<float> randomValues(std::size_t count, uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(rng);
  return v;
}

std::vector<float> roundToHalf(const std::vector<float>& values) {
  std::vector<float> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = halfToFloat(floatToHalf(values[i]));
  return out;
}

std::vector<double> softmaxRef(const std::vector<float>& x, std::size_t cols, double scale,
                               const std::vector<float>* mask, const std::vector<std::size_t>& maskRowOf) {
  const std::size_t rows = x.size() / cols;
  std::vector<double> y(x.size());
  std::vector<double> logits(cols);
  for (std::size_t r = 0; r < rows; ++r) {
    double m = -std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < cols; ++c) {
      double v = scale * x[r * cols + c];
      if (mask) v += (*mask)[maskRowOf[r] * cols + c];
      logits[c] = v;
      m = std::max(m, v);
    }
    if (m == -std::numeric_limits<double>::infinity()) {
      for (std::size_t c = 0; c < cols; ++c) y[r * cols + c] = 0.0;
      continue;
    }
    double sum = 0.0;
    for (std::size_t c = 0; c < cols; ++c) sum += std::exp(logits[c] - m);
    for (std::size_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(logits[c] - m) / sum;
  }
  return y;
}

std::vector<double> layerNormRef(const std::vector<float>& x, std::size_t cols, const std::vector<float>* weight,
                                 const std::vector<float>* bias, double eps) {
  const std::size_t rows = x.size() / cols;
  std::vector<double> y(x.size());
  for (std::size_t r = 0; r < rows; ++r) {
    double mean = 0.0;
    for (std::size_t c = 0; c < cols; ++c) mean += x[r * cols + c];
    mean /= static_cast<double>(cols);
    double var = 0.0;
    for (std::size_t c = 0; c < cols; ++c) var += (x[r * cols + c] - mean) * (x[r * cols + c] - mean);
    var /= static_cast<double>(cols);
    const double rstd = 1.0 / std::sqrt(var + eps);
    for (std::size_t c = 0; c < cols; ++c) {
      double v = (x[r * cols + c] - mean) * rstd;
      if (weight) v *= (*weight)[c];
      if (bias) v += (*bias)[c];
      y[r * cols + c] = v;
    }
  }
  return y;
}

std::vector<double> rmsNormRef(const std::vector<float>& x, std::size_t cols, const std::vector<float>* weight,
                               double eps) {
  std::vector<double> y(x.size());
  for (std::size_t r = 0; r < x.size() / cols; ++r)
    rmsNormRow(x.data() + r * cols, y.data() + r * cols, cols, eps, weight ? weight->data() : nullptr);
  return y;
}

std::vector<double> ropeRef(const std::vector<float>& x, std::size_t B, std::size_t H, std::size_t L, std::size_t D,
                            std::size_t rotaryDim, bool interleaved, double theta,
                            const std::vector<int64_t>& positions, const std::vector<double>& divisors) {
  std::vector<double> y(x.begin(), x.end());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t l = 0; l < L; ++l)
        rotateHead(y.data() + ((b * H + h) * L + l) * D, rotaryDim, interleaved, theta,
                   static_cast<double>(positions[b * L + l]), divisors);
  return y;
}

std::vector<double> embeddingRef(const std::vector<float>& table, const std::vector<int32_t>& ids, std::size_t dim,
                                 std::size_t seq, const std::vector<float>* positions, std::size_t offset) {
  std::vector<double> out;
  for (std::size_t t = 0; t < ids.size(); ++t)
    for (std::size_t d = 0; d < dim; ++d) {
      double v = table[static_cast<std::size_t>(ids[t]) * dim + d];
      if (positions) v = static_cast<float>(v + (*positions)[(offset + t % seq) * dim + d]);
      out.push_back(v);
    }
  return out;
}

}  // namespace vkattn::reference
