#include "vkattn/reference/language_model_reference.hpp"

#include <algorithm>
#include <cmath>

#include "vkattn/reference/linear_reference.hpp"
#include "vkattn/reference/primitives.hpp"

namespace vkattn::reference {
namespace {

using Matrix = std::vector<double>;  // row-major [rows, cols]

Matrix rmsNorm(const Matrix& x, int64_t rows, int64_t cols, const std::vector<float>& weight, double eps) {
  Matrix y(x.size());
  for (int64_t r = 0; r < rows; ++r)
    rmsNormRow(x.data() + r * cols, y.data() + r * cols, static_cast<std::size_t>(cols), eps, weight.data());
  return y;
}

// Rotates every head of x [L, heads * headDim] in place: row l sits at position l.
void rotate(Matrix& x, int64_t rows, int64_t heads, const DecoderModelWeights& m, bool sliding) {
  const bool own = sliding && m.slidingRopeTheta > 0;
  static const std::vector<double> kNoDivisors;
  for (int64_t l = 0; l < rows; ++l)
    for (int64_t h = 0; h < heads; ++h)
      rotateHead(x.data() + (l * heads + h) * m.headDim, static_cast<std::size_t>(m.rotaryDim), m.ropeInterleaved,
                 own ? m.slidingRopeTheta : m.ropeTheta, static_cast<double>(l), own ? kNoDivisors : m.ropeDivisors);
}

double softcapped(double s, double cap) {
  return cap > 0 ? cap * std::tanh(s / cap) : s;
}

// x += norm(y) with the weight given, else x += y.
void addResidual(Matrix& x, const Matrix& y, int64_t rows, int64_t cols, const std::vector<float>& postNorm,
                 double eps) {
  const Matrix z = postNorm.empty() ? y : rmsNorm(y, rows, cols, postNorm, eps);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += z[i];
}

}  // namespace

std::vector<double> decoderLogitsRef(const DecoderModelWeights& m, const std::vector<int32_t>& ids,
                                     std::vector<std::vector<double>>* probabilities) {
  const auto rows = static_cast<int64_t>(ids.size());
  const int64_t d = m.modelDim, hd = m.headDim, group = m.heads / m.kvHeads;
  Matrix x(static_cast<std::size_t>(rows * d));
  for (int64_t l = 0; l < rows; ++l)
    for (int64_t c = 0; c < d; ++c)
      x[static_cast<std::size_t>(l * d + c)] =
          m.embeddingScale * m.embedding[static_cast<std::size_t>(ids[static_cast<std::size_t>(l)] * d + c)];
  if (probabilities) probabilities->clear();

  for (std::size_t layer = 0; layer < m.layers.size(); ++layer) {
    const DecoderLayerWeights& w = m.layers[layer];
    const bool sliding = m.slidingPattern > 0 && m.slidingWindow > 0 &&
                         static_cast<int64_t>(layer) % m.slidingPattern < m.slidingPattern - 1;
    const Matrix h = rmsNorm(x, rows, d, w.attentionNorm, m.normEps);
    Matrix q = projectRows(h, rows, d, w.q, m.heads * hd, w.qBias);
    Matrix k = projectRows(h, rows, d, w.k, m.kvHeads * hd, w.kBias);
    const Matrix v = projectRows(h, rows, d, w.v, m.kvHeads * hd, w.vBias);
    if (!w.qNorm.empty()) q = rmsNorm(q, rows * m.heads, hd, w.qNorm, m.normEps);  // each head's row
    if (!w.kNorm.empty()) k = rmsNorm(k, rows * m.kvHeads, hd, w.kNorm, m.normEps);
    rotate(q, rows, m.heads, m, sliding);
    rotate(k, rows, m.kvHeads, m, sliding);

    Matrix context(static_cast<std::size_t>(rows * m.heads * hd), 0.0);
    std::vector<double> map(static_cast<std::size_t>(m.heads * rows * rows), 0.0);
    const double scale = m.queryScale > 0 ? m.queryScale : 1.0 / std::sqrt(static_cast<double>(hd));
    for (int64_t head = 0; head < m.heads; ++head) {
      const int64_t kvHead = head / group;
      for (int64_t i = 0; i < rows; ++i) {
        // Keys first .. i: all before i, or the window's.
        const int64_t first = sliding ? std::max<int64_t>(0, i - m.slidingWindow + 1) : 0;
        std::vector<double> scores(static_cast<std::size_t>(i + 1), -INFINITY);
        for (int64_t j = first; j <= i; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < hd; ++c)
            dot += q[static_cast<std::size_t>((i * m.heads + head) * hd + c)] *
                   k[static_cast<std::size_t>((j * m.kvHeads + kvHead) * hd + c)];
          scores[static_cast<std::size_t>(j)] = softcapped(dot * scale, m.attentionSoftcap);
        }
        const double top = *std::max_element(scores.begin(), scores.end());
        double total = 0;
        for (double& s : scores) total += (s = std::exp(s - top));
        for (int64_t j = first; j <= i; ++j) {
          const double p = scores[static_cast<std::size_t>(j)] / total;
          map[static_cast<std::size_t>((head * rows + i) * rows + j)] = p;
          for (int64_t c = 0; c < hd; ++c)
            context[static_cast<std::size_t>((i * m.heads + head) * hd + c)] +=
                p * v[static_cast<std::size_t>((j * m.kvHeads + kvHead) * hd + c)];
        }
      }
    }
    if (probabilities) probabilities->push_back(std::move(map));
    addResidual(x, projectRows(context, rows, m.heads * hd, w.o, d, {}), rows, d, w.postAttentionNorm, m.normEps);

    const Matrix h2 = rmsNorm(x, rows, d, w.ffnNorm, m.normEps);
    const Matrix gate = projectRows(h2, rows, d, w.gate, m.ffnDim, {});
    const Matrix up = projectRows(h2, rows, d, w.up, m.ffnDim, {});
    Matrix hidden(gate.size());
    for (std::size_t i = 0; i < gate.size(); ++i) hidden[i] = activationRef(gate[i], m.gateActivation) * up[i];
    addResidual(x, projectRows(hidden, rows, m.ffnDim, w.down, d, {}), rows, d, w.postFfnNorm, m.normEps);
  }
  std::vector<double> logits =
      projectRows(rmsNorm(x, rows, d, m.outputNorm, m.normEps), rows, d, m.output, m.vocab, {});
  for (double& v : logits) v = softcapped(v, m.finalSoftcap);
  return logits;
}

}  // namespace vkattn::reference
