// The steps linear() can take after its product over y's whole rows (LinearOptions::ropeAppend,
// postNorm), in a header of their own so that the code running them need not know linear().
#pragma once

#include <optional>

#include "vkattn/core/tensor.hpp"
#include "vkattn/ops/rope.hpp"

namespace vkattn {

// The steps linear() can take after the product over y's whole rows (a decoded token's next op),
// as if called after it. Where finishesRowsInProduct() holds, the product's own dispatch runs the
// step (the matrix-vector kernel's last workgroup to finish: no dispatch of its own); elsewhere it
// is its own op after the product.
// ropeAppend() on the stacked q/k/v rows y holds: q, k, v are views of y's buffer, keysOut and
// valuesOut a key/value cache's newest rows, or the whole caches with rope.positions on the
// device (ropeAppend's rules, which also name the arguments; a position outside the caches is
// reported as ropeAppend.rope.positions).
struct RopeAppendStep {
  TensorView q, k, v, keysOut, valuesOut;
  RopeOptions rope;
  std::optional<HeadNorms> headNorms;
};
// y = residual + rmsNorm(y) * weight, row by row: a post-norm model's x + norm(sublayer) (rmsNorm()
// with a residual). weight [N] as rmsNorm's; residual of y's shape and dtype, contiguous (y too).
struct PostNormStep {
  TensorView weight;
  float eps = 1e-6f;
  TensorView residual;
};

}  // namespace vkattn
