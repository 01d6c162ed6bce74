#include "vkattn/reference/attention_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace vkattn::reference {
namespace {

std::size_t maskIndex(const std::size_t dims[3], std::size_t lk, std::size_t b, std::size_t h, std::size_t i,
                      std::size_t j) {
  const std::size_t bb = dims[0] == 1 ? 0 : b, hh = dims[1] == 1 ? 0 : h, ii = dims[2] == 1 ? 0 : i;
  return ((bb * dims[1] + hh) * dims[2] + ii) * lk + j;
}

}  // namespace

bool attentionKeyVisible(const AttentionProblem& pr, std::size_t b, std::size_t i, std::size_t j) {
  if (pr.keyLengths && static_cast<int64_t>(j) >= (*pr.keyLengths)[b]) return false;
  const auto lk = static_cast<int64_t>(pr.lk);
  const int64_t keys = pr.alignToKeyLengths && pr.keyLengths ? std::clamp<int64_t>((*pr.keyLengths)[b], 0, lk) : lk;
  const int64_t diag = static_cast<int64_t>(i) + (pr.bottomRight ? keys - static_cast<int64_t>(pr.lq) : 0);
  const int64_t rel = static_cast<int64_t>(j) - diag;
  if (pr.causal && rel > 0) return false;
  if (pr.windowRight && rel > *pr.windowRight) return false;
  if (pr.windowLeft && rel < -*pr.windowLeft) return false;
  return true;
}

AttentionResult attentionRef(const AttentionProblem& pr, const std::vector<float>& q, const std::vector<float>& k,
                             const std::vector<float>& v) {
  const double negInf = -std::numeric_limits<double>::infinity();
  AttentionResult r;
  r.out.assign(pr.batch * pr.headsQ * pr.lq * pr.dv, 0.0);
  r.lse.assign(pr.batch * pr.headsQ * pr.lq, negInf);
  if (pr.withProbs) r.probs.assign(pr.batch * pr.headsQ * pr.lq * pr.lk, 0.0);
  std::vector<std::size_t> rows = pr.rows;
  if (rows.empty())
    for (std::size_t i = 0; i < pr.lq; ++i) rows.push_back(i);
  const std::size_t group = pr.headsQ / pr.headsKv;
  std::vector<double> s(pr.lk);
  for (std::size_t b = 0; b < pr.batch; ++b)
    for (std::size_t h = 0; h < pr.headsQ; ++h) {
      const std::size_t kvh = h / group;
      for (const std::size_t i : rows) {
        const float* qRow = &q[((b * pr.headsQ + h) * pr.lq + i) * pr.dk];
        double m = negInf;
        for (std::size_t j = 0; j < pr.lk; ++j) {
          const float* kRow = &k[((b * pr.headsKv + kvh) * pr.lk + j) * pr.dk];
          double dot = 0.0;
          for (std::size_t d = 0; d < pr.dk; ++d) dot += static_cast<double>(qRow[d]) * kRow[d];
          double logit = pr.scale * dot;
          if (pr.softcap > 0.0) logit = pr.softcap * std::tanh(logit / pr.softcap);
          if (pr.alibiSlopes) {
            const double slope = (*pr.alibiSlopes)[(pr.alibiPerBatch ? b * pr.headsQ : 0) + h];
            const int64_t keys = pr.keyLengths
                                     ? std::clamp<int64_t>((*pr.keyLengths)[b], 0, static_cast<int64_t>(pr.lk))
                                     : static_cast<int64_t>(pr.lk);
            logit -= slope * static_cast<double>(std::llabs(static_cast<int64_t>(i) + keys -
                                                            static_cast<int64_t>(pr.lq) - static_cast<int64_t>(j)));
          }
          if (pr.bias) logit += (*pr.bias)[maskIndex(pr.biasDims, pr.lk, b, h, i, j)];
          bool visible = attentionKeyVisible(pr, b, i, j);
          if (pr.keep && (*pr.keep)[maskIndex(pr.keepDims, pr.lk, b, h, i, j)] == 0) visible = false;
          s[j] = visible ? logit : negInf;
          m = std::max(m, s[j]);
        }
        const std::size_t row = (b * pr.headsQ + h) * pr.lq + i;
        const double sink = pr.sinks ? static_cast<double>((*pr.sinks)[h]) : negInf;
        if (m == negInf) {  // no visible key: zeros, lse -inf (or the sink)
          r.lse[row] = sink;
          continue;
        }
        m = std::max(m, sink);
        double sum = sink == negInf ? 0.0 : std::exp(sink - m);
        for (std::size_t j = 0; j < pr.lk; ++j) sum += s[j] == negInf ? 0.0 : std::exp(s[j] - m);
        r.lse[row] = m + std::log(sum);
        for (std::size_t j = 0; j < pr.lk; ++j) {
          const double p = s[j] == negInf ? 0.0 : std::exp(s[j] - m) / sum;
          if (pr.withProbs) r.probs[row * pr.lk + j] = p;
          if (p == 0.0) continue;
          const float* vRow = &v[((b * pr.headsKv + kvh) * pr.lk + j) * pr.dv];
          for (std::size_t d = 0; d < pr.dv; ++d) r.out[row * pr.dv + d] += p * vRow[d];
        }
      }
    }
  return r;
}

}  // namespace vkattn::reference
