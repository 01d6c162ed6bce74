// Double-precision CPU references for the kernels, written from the formulas, independent of the
// shaders. Inputs are row-major.
#pragma once

#include <cstdint>
#include <vector>

namespace vkattn::reference {

// Seeded uniform values in [lo, hi).
std::vector<float> randomValues(std::size_t count, uint64_t seed, float lo = -1.0f, float hi = 1.0f);
// Values rounded through fp16, so fp16 kernels and the reference see the same inputs.
std::vector<float> roundToHalf(const std::vector<float>& values);

// softmax(scale * x + mask) per row of `cols`; `maskRowOf(r)` picks the mask row (or -1 for none).
// Rows whose logits are all -inf give zeros (vkattn's documented choice).
std::vector<double> softmaxRef(const std::vector<float>& x, std::size_t cols, double scale,
                               const std::vector<float>* mask, const std::vector<std::size_t>& maskRowOf);

std::vector<double> layerNormRef(const std::vector<float>& x, std::size_t cols, const std::vector<float>* weight,
                                 const std::vector<float>* bias, double eps);

std::vector<double> rmsNormRef(const std::vector<float>& x, std::size_t cols, const std::vector<float>* weight,
                               double eps);

// RoPE on contiguous [B, H, L, D]; positions[b * L + l]; pair i's frequency divided by
// divisors[i] when divisors is not empty.
std::vector<double> ropeRef(const std::vector<float>& x, std::size_t B, std::size_t H, std::size_t L, std::size_t D,
                            std::size_t rotaryDim, bool interleaved, double theta,
                            const std::vector<int64_t>& positions, const std::vector<double>& divisors = {});

// Embedding lookup: rows of table [vocab, dim] by ids, plus positions[offset + t % seq] when given.
std::vector<double> embeddingRef(const std::vector<float>& table, const std::vector<int32_t>& ids, std::size_t dim,
                                 std::size_t seq, const std::vector<float>* positions, std::size_t offset);

}  // namespace vkattn::reference
