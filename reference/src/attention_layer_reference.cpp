#include "vkattn/reference/attention_layer_reference.hpp"

#include <algorithm>
#include <cmath>

#include "vkattn/reference/primitives.hpp"

namespace vkattn::reference {

std::vector<double> attentionLayerRef(const AttentionLayerProblem& c, const AttentionLayerHostWeights& w,
                                      const std::vector<float>& x, const std::vector<float>& src,
                                      std::vector<double>* probs) {
  const int64_t dh = c.d / c.heads, qw = c.heads * dh, kvw = c.kvHeads * dh, B = c.batch, L = c.len, S = c.sourceLen;
  std::vector<double> q = projectRows(x, B * L, c.d, w.q, qw, w.qb);
  std::vector<double> k = projectRows(src, B * S, c.d, w.k, kvw, w.kb);
  std::vector<double> v = projectRows(src, B * S, c.d, w.v, kvw, w.vb);
  if (c.rope) {
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t l = 0; l < L; ++l)  // queries are the newest positions
        for (int64_t h = 0; h < c.heads; ++h)
          rotateHead(&q[(b * L + l) * qw + h * dh], dh, false, 10000.0, static_cast<double>(S - L + l));
      for (int64_t s = 0; s < S; ++s)
        for (int64_t h = 0; h < c.kvHeads; ++h)
          rotateHead(&k[(b * S + s) * kvw + h * dh], dh, false, 10000.0, static_cast<double>(s));
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
  return projectRows(context, B * L, qw, w.o, c.d, w.ob);
}

}  // namespace vkattn::reference
