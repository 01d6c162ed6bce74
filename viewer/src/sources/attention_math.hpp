// Pure functions over host attention maps: one head, head aggregation, attention rollout, hidden
// (sink) columns, A - B differences, and the per-row statistics the hover shows. The viewer
// derives what it draws with their device counterparts (sources/map_kernels.hpp), which are
// tested against these; the hover reads its row with these. No Vulkan here.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "vkattn/ops/attention_map.hpp"

namespace vkattn::viewer {

// One 2-D map, row-major: rows attend (queries), columns are attended (keys).
struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> values;

  Matrix() = default;
  Matrix(int64_t r, int64_t c, float fill = 0.0f) : rows(r), cols(c), values(static_cast<std::size_t>(r * c), fill) {}
  float at(int64_t r, int64_t c) const { return values[static_cast<std::size_t>(r * cols + c)]; }
  float& at(int64_t r, int64_t c) { return values[static_cast<std::size_t>(r * cols + c)]; }
};

enum class Aggregation { Mean, Max };

// Head `head` of one layer. Throws InvalidArgument("head") when out of range.
Matrix headMap(const AttentionMap& layer, int64_t head);
// Elementwise mean or max over the layer's heads.
Matrix aggregateHeads(const AttentionMap& layer, Aggregation how);

// Attention rollout (Abnar & Zuidema 2020) through layers[0..last]: each layer's map becomes
// rownorm(0.5 A + 0.5 I) (the residual stream), and R = Ã_last ... Ã_1 Ã_0. Maps must be square
// and of one size (self-attention); throws InvalidArgument("rollout") otherwise.
Matrix rollout(const std::vector<Matrix>& layers, int64_t last);
// The checks rollout makes, for maps of `shapes` (rows, cols) each: the device rollout's too.
void checkRollout(const std::vector<std::pair<int64_t, int64_t>>& shapes, int64_t last);

// True when every value is >= 0 and every row sums to 1 (within 1e-3) or to 0 (a row masked
// out entirely): attention probabilities, which hiding columns may renormalise.
bool isProbabilityMap(const Matrix& map);

// Zeroes the hidden columns. With `renormalise` (probability maps) each row is rescaled to sum to
// what it summed to before, so that the rest of the row reads as if the sink tokens were not
// there; a row with nothing left stays zero. Without it (scores, signed values, anything whose
// rows are not distributions) the kept values are left exactly as given, every row alike.
Matrix hideColumns(const Matrix& map, const std::vector<int64_t>& hidden, bool renormalise = true);

// a - b; throws InvalidArgument("difference") when the shapes differ.
Matrix difference(const Matrix& a, const Matrix& b);

// Shannon entropy in bits of row `row`, normalised by the row's sum (0 for an all-zero row).
double rowEntropy(const Matrix& map, int64_t row);
// Column of the row's largest value (the first one on ties).
int64_t rowArgmax(const Matrix& map, int64_t row);

// Smallest and largest value (0, 0 for an empty map).
struct ValueRange {
  float min = 0.0f;
  float max = 0.0f;
};
ValueRange valueRange(const Matrix& map);

}  // namespace vkattn::viewer
