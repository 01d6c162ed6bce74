// Double-precision reference for scaled dot-product attention, written from the formula
// softmax(scale * Q K^T + mask) V with an explicit score row (no online softmax), independent of
// the shaders. Inputs are contiguous [B, H, L, D].
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace vkattn::reference {

struct AttentionProblem {
  std::size_t batch = 1, headsQ = 1, headsKv = 1, lq = 1, lk = 1, dk = 16, dv = 16;
  double scale = 0.25;
  bool causal = false;
  bool bottomRight = false;
  // With bottomRight: the diagonal ends at each batch's last key (i + Lk_b - Lq, Lk_b its key
  // length clamped to [0, lk]) instead of the tensor's (i + lk - lq).
  bool alignToKeyLengths = false;
  std::optional<int64_t> windowLeft, windowRight;
  // Masks as [mb, mh, ml, lk] with each of mb, mh, ml either 1 (broadcast) or full.
  const std::vector<float>* bias = nullptr;
  std::size_t biasDims[3] = {1, 1, 1};
  const std::vector<int32_t>* keep = nullptr;
  std::size_t keepDims[3] = {1, 1, 1};
  const std::vector<int32_t>* keyLengths = nullptr;  // [batch]
  // Logit shaping, in this order on a visible key's scaled logit s: softcap c * tanh(s / c) (c > 0),
  // then ALiBi -slope * |i + Lk_b - Lq - j| (Lk_b: the batch's key length, clamped to [0, lk]),
  // then bias.
  double softcap = 0.0;
  const std::vector<float>* alibiSlopes = nullptr;  // [headsQ], or [batch, headsQ] when alibiPerBatch
  bool alibiPerBatch = false;
  // [headsQ]: a logit per head that joins each row's softmax denominator (no value row).
  const std::vector<float>* sinks = nullptr;
  // Query rows to evaluate (each in [0, lq)); the other rows stay zero with lse -inf. Empty: all.
  // Benchmarks at long sequences check a sample of rows instead of paying O(Lq·Lk) in doubles.
  std::vector<std::size_t> rows;
  bool withProbs = true;  // false leaves AttentionResult::probs empty (it is B·Hq·Lq·Lk doubles)
};

struct AttentionResult {
  std::vector<double> out;    // [B, Hq, Lq, Dv]
  std::vector<double> lse;    // [B, Hq, Lq], -inf for rows with no visible key (the sink, with sinks)
  std::vector<double> probs;  // [B, Hq, Lq, Lk] when AttentionProblem::withProbs
};

AttentionResult attentionRef(const AttentionProblem& problem, const std::vector<float>& q, const std::vector<float>& k,
                             const std::vector<float>& v);

// Whether query row i sees key j under the problem's causal / window / key-length rules (not the
// keep mask or bias).
bool attentionKeyVisible(const AttentionProblem& problem, std::size_t b, std::size_t i, std::size_t j);

}  // namespace vkattn::reference
