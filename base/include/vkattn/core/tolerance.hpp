// How close a kernel's output must be to its double-precision reference: an element passes when
//   |got - ref| <= atol + rtol * |ref| (+ dotRtol * sum_k |a_k b_k| for matrix products).
// An op's row (vkattn/ops/op_row.hpp) or reference::toleranceFor gives each kernel's.
#pragma once

namespace vkattn {

struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
  double dotRtol = 0.0;  // matrix products: times the output's sum of |products|
};

}  // namespace vkattn
