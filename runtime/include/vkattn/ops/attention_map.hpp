// AttentionMap: attention probabilities on the host, as the models return them and the viewer
// draws them. Produced by attentionWeights() (downloaded) or by a model's forward pass.
#pragma once

#include <cstdint>
#include <vector>

namespace vkattn {

// Attention probabilities of one layer, host f32 [heads, rows, cols] row-major: rows are the
// attending tokens (queries), cols the attended ones (keys).
struct AttentionMap {
  int64_t heads = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> weights;
  float at(int64_t head, int64_t row, int64_t col) const { return weights[(head * rows + row) * cols + col]; }
};

}  // namespace vkattn
