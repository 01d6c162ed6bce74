#include "vkattn/reference/attention_layer_reference.hpp"

#include <algorithm>
#include <cmath>

namespace vkattn::reference {
namespace {

// y[r, :] = x[r, :] W^T + b for rows of width `in`.
std::vector<double> project(const std::vector<float>& x, int64_t rows, int64_t in, const std::vector<float>& w,
                            const std::vector<float>& b, int64_t out) {
  std::vector<double> y(static_cast<std::size_t>(rows * out));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t n = 0; n < out; ++n) {
      double acc = b[n];
      for (int64_t k = 0; k < in; ++k) acc += static_cast<double>(x[r * in + k]) * w[n * in + k];
      y[r * out + n] = acc;
    }
  return y;
}

// rotate_half RoPE of one head vector at `pos`, theta 10000.
void ropeInPlace(double* x, int64_t dh, int64_t pos) {
  for (int64_t i = 0; i < dh / 2; ++i) {
    const double angle = static_cast<double>(pos) * std::pow(10000.0, -2.0 * static_cast<double>(i) / dh);
    const double a = x[i], b = x[i + dh / 2];
    x[i] = a * std::cos(angle) - b * std::sin(angle);
    x[i + dh / 2] = b * std::cos(angle) + a * std::sin(angle);
  }
}

}  // namespace

std::vector<double> attentionLayerRef(const AttentionLayerProblem& c, const AttentionLayerHostWeights& w,
                                      const std::vector<float>& x, const std::vector<float>& src,
                                      std::vector<double>* probs) {
  const int64_t dh = c.d / c.heads, qw = c.heads * dh, kvw = c.kvHeads * dh, B = c.batch, L = c.len,
                S = c.sourceLen;
  std::vector<double> q = project(x, B * L, c.d, w.q, w.qb, qw);
  std::vector<double> k = project(src, B * S, c.d, w.k, w.kb, kvw);
  std::vector<double> v = project(src, B * S, c.d, w.v, w.vb, kvw);
  if (c.rope) {
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t l = 0; l < L; ++l)  // queries are the newest positions
        for (int64_t h = 0; h < c.heads; ++h) ropeInPlace(&q[(b * L + l) * qw + h * dh], dh, S - L + l);
      for (int64_t s = 0; s < S; ++s)
        for (int64_t h = 0; h < c.kvHeads; ++h) ropeInPlace(&k[(b * S + s) * kvw + h * dh], dh, s);
    }
  }
  std::vector<float> context(static_cast<std::size_t>(B * L * qw));
  if (probs) probs->assign(static_cast<std::size_t>(B * c.heads * L * S), 0.0);
  const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < c.heads; ++h) {
      const int64_t g = h / (c.heads / c.kvHeads);
      for (int64_t i = 0; i < L; ++i) {
        std::vector<double> s(static_cast<std::size_t>(S), -INFINITY);
        double max = -INFINITY;
        for (int64_t j = 0; j < S; ++j) {
          if (c.causal && j > i + (S - L)) continue;
          double dot = 0;
          for (int64_t e = 0; e < dh; ++e) dot += q[(b * L + i) * qw + h * dh + e] * k[(b * S + j) * kvw + g * dh + e];
          s[j] = dot * scale;
          max = std::max(max, s[j]);
        }
        double sum = 0;
        for (double& e : s) sum += (e = std::exp(e - max));
        for (int64_t e = 0; e < dh; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < S; ++j) acc += s[j] / sum * v[(b * S + j) * kvw + g * dh + e];
          context[(b * L + i) * qw + h * dh + e] = static_cast<float>(acc);
        }
        if (probs)
          for (int64_t j = 0; j < S; ++j) (*probs)[((b * c.heads + h) * L + i) * S + j] = s[j] / sum;
      }
    }
  // The output projection of a float context: the rounding this adds is far below the tolerance.
  return project(context, B * L, qw, w.o, w.ob, c.d);
}

}  // namespace vkattn::reference
