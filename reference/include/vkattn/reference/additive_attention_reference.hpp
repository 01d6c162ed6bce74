// Double-precision reference of additive (Bahdanau) attention, written from the formula
// score(Q, K_i) = v^T tanh(W_q Q + W_k K_i), with causal, bias, keep and key-length masks.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace vkattn::reference {

struct AdditiveProblem {
  int64_t B = 2, Lq = 5, Lk = 7, Dq = 6, Dk = 10, Dv = 3, A = 8;
  bool causal = false;
  std::vector<float> bias;  // [B, Lq, Lk] full, or empty
  std::vector<int32_t> keep;
  std::vector<int32_t> keyLengths;
};

// Returns out [B, Lq, Dv] and weights [B, Lq, Lk]; q [B, Lq, Dq], k [B, Lk, Dk], val [B, Lk, Dv],
// wq [A, Dq], wk [A, Dk], v [A]. Rows whose keys are all masked are zeros.
std::pair<std::vector<double>, std::vector<double>> additiveAttentionRef(
    const AdditiveProblem& p, const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& val,
    const std::vector<float>& wq, const std::vector<float>& wk, const std::vector<float>& v);

}  // namespace vkattn::reference
