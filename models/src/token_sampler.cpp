#include "vkattn/models/token_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "vkattn/core/error.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn {

uint64_t freshSeed() {
  std::random_device entropy;
  const uint64_t high = entropy(), low = entropy();
  return ((high << 32) | low) & ~(uint64_t{1} << 63);
}

namespace {

void requireSamplerOptions(const SamplerOptions& options) {
  requireTokenDraw({.temperature = options.temperature, .topK = options.topK, .topP = options.topP});
}

}  // namespace

int32_t drawToken(std::span<const float> logits, const SamplerOptions& options, double u) {
  requireSamplerOptions(options);
  if (logits.empty()) throw InvalidArgument("logits", "is empty");
  if (std::any_of(logits.begin(), logits.end(), [](float v) { return std::isnan(v); }))
    throw InvalidArgument("logits", "holds NaN");
  if (options.temperature == 0.0f)
    return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());

  // Candidates by descending logit (ties: lower id first), cut to the top k.
  std::vector<int32_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return logits[a] > logits[b]; });
  if (options.topK > 0 && static_cast<std::size_t>(options.topK) < order.size())
    order.resize(static_cast<std::size_t>(options.topK));

  std::vector<double> weights(order.size());
  const float top = logits[static_cast<std::size_t>(order[0])];
  double total = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const float l = logits[static_cast<std::size_t>(order[i])];
    weights[i] =
        l == top ? 1.0 : std::exp((static_cast<double>(l) - top) / options.temperature);  // a row of -inf: even
    total += weights[i];
  }
  // Nucleus: the shortest prefix whose probability reaches top p.
  std::size_t kept = order.size();
  if (options.topP < 1.0f) {
    double mass = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      mass += weights[i] / total;
      if (mass >= options.topP) {
        kept = i + 1;
        break;
      }
    }
  }
  const double keptMass = std::accumulate(weights.begin(), weights.begin() + static_cast<std::ptrdiff_t>(kept), 0.0);
  const double target = u * keptMass;  // uniform in [0, keptMass)
  double sum = 0;
  for (std::size_t i = 0; i < kept; ++i) {
    sum += weights[i];
    if (target < sum) return order[i];
  }
  return order[kept - 1];
}

TokenSampler::TokenSampler(const SamplerOptions& options) : m_options(options), m_random(options.seed) {
  requireSamplerOptions(options);
}

double TokenSampler::nextUniform() {
  return static_cast<double>(m_random() >> 11) * 0x1.0p-53;
}

int32_t TokenSampler::next(std::span<const float> logits) {
  return drawToken(logits, m_options, m_options.temperature == 0.0f ? 0.0 : nextUniform());
}

}  // namespace vkattn
