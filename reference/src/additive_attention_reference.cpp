#include "vkattn/reference/additive_attention_reference.hpp"

#include <algorithm>
#include <cmath>

namespace vkattn::reference {

std::pair<std::vector<double>, std::vector<double>> additiveAttentionRef(
    const AdditiveProblem& p, const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& val,
    const std::vector<float>& wq, const std::vector<float>& wk, const std::vector<float>& v) {
  std::vector<double> out(p.B * p.Lq * p.Dv, 0.0), weights(p.B * p.Lq * p.Lk, 0.0);
  for (int64_t b = 0; b < p.B; ++b)
    for (int64_t i = 0; i < p.Lq; ++i) {
      std::vector<double> s(p.Lk, -INFINITY);
      double m = -INFINITY;
      for (int64_t j = 0; j < p.Lk; ++j) {
        const int64_t at = (b * p.Lq + i) * p.Lk + j;
        if (p.causal && j > i) continue;
        if (!p.keyLengths.empty() && j >= p.keyLengths[b]) continue;
        if (!p.keep.empty() && p.keep[at] == 0) continue;
        double score = 0.0;
        for (int64_t a = 0; a < p.A; ++a) {
          double hq = 0.0, hk = 0.0;
          for (int64_t d = 0; d < p.Dq; ++d) hq += double(wq[a * p.Dq + d]) * q[(b * p.Lq + i) * p.Dq + d];
          for (int64_t d = 0; d < p.Dk; ++d) hk += double(wk[a * p.Dk + d]) * k[(b * p.Lk + j) * p.Dk + d];
          score += v[a] * std::tanh(hq + hk);
        }
        if (!p.bias.empty()) score += p.bias[at];
        s[j] = score;
        m = std::max(m, score);
      }
      if (m == -INFINITY) continue;
      double sum = 0.0;
      for (double x : s) sum += std::exp(x - m);
      for (int64_t j = 0; j < p.Lk; ++j) {
        const double w = std::exp(s[j] - m) / sum;
        weights[(b * p.Lq + i) * p.Lk + j] = w;
        for (int64_t d = 0; d < p.Dv; ++d) out[(b * p.Lq + i) * p.Dv + d] += w * val[(b * p.Lk + j) * p.Dv + d];
      }
    }
  return {out, weights};
}

}  // namespace vkattn::reference
