#include "sources/attention_math.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

// rownorm(0.5 A + 0.5 I): the residual connection carries half of each token through unchanged.
Matrix withResidual(const Matrix& a) {
  Matrix out(a.rows, a.cols);
  for (int64_t r = 0; r < a.rows; ++r) {
    double sum = 0.0;
    for (int64_t c = 0; c < a.cols; ++c) {
      out.at(r, c) = 0.5f * a.at(r, c) + (r == c ? 0.5f : 0.0f);
      sum += out.at(r, c);
    }
    if (sum > 0.0)
      for (int64_t c = 0; c < a.cols; ++c) out.at(r, c) = static_cast<float>(out.at(r, c) / sum);
  }
  return out;
}

Matrix multiply(const Matrix& a, const Matrix& b) {
  Matrix out(a.rows, b.cols);
  std::vector<double> row(static_cast<std::size_t>(b.cols));
  for (int64_t r = 0; r < a.rows; ++r) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int64_t k = 0; k < a.cols; ++k) {
      const double v = a.at(r, k);
      if (v == 0.0) continue;
      for (int64_t c = 0; c < b.cols; ++c) row[static_cast<std::size_t>(c)] += v * b.at(k, c);
    }
    for (int64_t c = 0; c < b.cols; ++c) out.at(r, c) = static_cast<float>(row[static_cast<std::size_t>(c)]);
  }
  return out;
}

}  // namespace

Matrix headMap(const AttentionMap& layer, int64_t head) {
  if (head < 0 || head >= layer.heads)
    throw InvalidArgument(
        "head", std::to_string(head) + " is out of range; the layer has " + std::to_string(layer.heads) + " heads");
  Matrix out(layer.rows, layer.cols);
  const auto first = layer.weights.begin() + head * layer.rows * layer.cols;
  std::copy(first, first + layer.rows * layer.cols, out.values.begin());
  return out;
}

Matrix aggregateHeads(const AttentionMap& layer, Aggregation how) {
  if (layer.heads == 0) return Matrix(layer.rows, layer.cols);
  Matrix out = headMap(layer, 0);
  for (int64_t h = 1; h < layer.heads; ++h) {
    const float* head = layer.weights.data() + h * layer.rows * layer.cols;
    for (std::size_t i = 0; i < out.values.size(); ++i)
      out.values[i] = how == Aggregation::Max ? std::max(out.values[i], head[i]) : out.values[i] + head[i];
  }
  if (how == Aggregation::Mean)
    for (float& v : out.values) v /= static_cast<float>(layer.heads);
  return out;
}

void checkRollout(const std::vector<std::pair<int64_t, int64_t>>& shapes, int64_t last) {
  if (shapes.empty() || last < 0 || last >= static_cast<int64_t>(shapes.size()))
    throw InvalidArgument("rollout", "layer " + std::to_string(last) + " is out of range; there are " +
                                         std::to_string(shapes.size()) + " layers");
  for (const auto& [rows, cols] : shapes)
    if (rows != cols || rows != shapes[0].first)
      throw InvalidArgument("rollout", "needs square self-attention maps of one size, got " + std::to_string(rows) +
                                           " x " + std::to_string(cols));
}

Matrix rollout(const std::vector<Matrix>& layers, int64_t last) {
  std::vector<std::pair<int64_t, int64_t>> shapes;
  for (const Matrix& m : layers) shapes.emplace_back(m.rows, m.cols);
  checkRollout(shapes, last);
  Matrix result = withResidual(layers[0]);
  for (int64_t l = 1; l <= last; ++l) result = multiply(withResidual(layers[static_cast<std::size_t>(l)]), result);
  return result;
}

bool isProbabilityMap(const Matrix& map) {
  for (int64_t r = 0; r < map.rows; ++r) {
    double sum = 0.0;
    for (int64_t c = 0; c < map.cols; ++c) {
      const float v = map.at(r, c);
      if (!(v >= 0.0f)) return false;
      sum += v;
    }
    if (std::fabs(sum - 1.0) > 1e-3 && sum != 0.0) return false;
  }
  return true;
}

Matrix hideColumns(const Matrix& map, const std::vector<int64_t>& hidden, bool renormalise) {
  Matrix out = map;
  std::vector<bool> hide(static_cast<std::size_t>(map.cols), false);
  for (int64_t c : hidden)
    if (c >= 0 && c < map.cols) hide[static_cast<std::size_t>(c)] = true;
  for (int64_t r = 0; r < map.rows; ++r) {
    double before = 0.0, after = 0.0;
    for (int64_t c = 0; c < map.cols; ++c) {
      before += map.at(r, c);
      if (hide[static_cast<std::size_t>(c)])
        out.at(r, c) = 0.0f;
      else
        after += map.at(r, c);
    }
    if (!renormalise) continue;
    const double gain = after > 0.0 ? before / after : 0.0;
    for (int64_t c = 0; c < map.cols; ++c) out.at(r, c) = static_cast<float>(out.at(r, c) * gain);
  }
  return out;
}

Matrix difference(const Matrix& a, const Matrix& b) {
  if (a.rows != b.rows || a.cols != b.cols)
    throw InvalidArgument("difference", "maps of " + std::to_string(a.rows) + " x " + std::to_string(a.cols) + " and " +
                                            std::to_string(b.rows) + " x " + std::to_string(b.cols) +
                                            " cannot be subtracted");
  Matrix out(a.rows, a.cols);
  for (std::size_t i = 0; i < out.values.size(); ++i) out.values[i] = a.values[i] - b.values[i];
  return out;
}

double rowEntropy(const Matrix& map, int64_t row) {
  double sum = 0.0;
  for (int64_t c = 0; c < map.cols; ++c) sum += std::max(0.0f, map.at(row, c));
  if (sum <= 0.0) return 0.0;
  double h = 0.0;
  for (int64_t c = 0; c < map.cols; ++c) {
    const double p = std::max(0.0f, map.at(row, c)) / sum;
    if (p > 0.0) h -= p * std::log2(p);
  }
  return h;
}

int64_t rowArgmax(const Matrix& map, int64_t row) {
  int64_t best = 0;
  for (int64_t c = 1; c < map.cols; ++c)
    if (map.at(row, c) > map.at(row, best)) best = c;
  return best;
}

ValueRange valueRange(const Matrix& map) {
  if (map.values.empty()) return {};
  auto [lo, hi] = std::minmax_element(map.values.begin(), map.values.end());
  return {*lo, *hi};
}

}  // namespace vkattn::viewer
