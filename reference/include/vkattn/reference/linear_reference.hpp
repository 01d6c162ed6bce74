// Double-precision references for linear / matmul and the elementwise ops, and a comparison whose
// tolerance grows with each output's sum of |products| (the rounding a K-long fp32 dot product can
// accumulate), as the matmul kernels document:
//   |got - ref| <= atol + rtol |ref| + dotRtol * sum_k |a_k b_k| (+ extra, where a kernel rounds x).
#pragma once

#include <cstdint>
#include <vector>

#include "vkattn/ops/linear.hpp"
#include "vkattn/reference/error_stats.hpp"

namespace vkattn::reference {

double activationRef(double v, Activation activation);

struct MatmulRef {
  std::vector<double> value;
  std::vector<double> absDot;  // sum_k |a b| per output, for the tolerance
  std::vector<double> extra;   // per output, added to the tolerance where present (addXRounding8Bit)
};

// c[bt, m, n] = alpha sum_k a[bt, m, k] B(bt, n, k) over contiguous row-major inputs: a
// [batch, M, K]; b [batch or 1, K, N], or [batch or 1, N, K] with transposeB.
MatmulRef matmulRef(const std::vector<float>& a, const std::vector<float>& b, std::size_t batch, std::size_t m,
                    std::size_t n, std::size_t k, bool transposeB, bool broadcastB = false, double alpha = 1.0);

// y[m, n] = act(sum_k x[m, k] w[n, k] + bias[n]) + residual[m, n] (x [M, K], w [N, K]).
MatmulRef linearRef(const std::vector<float>& x, const std::vector<float>& w, std::size_t m, std::size_t n,
                    std::size_t k, const std::vector<float>* bias, Activation activation,
                    const std::vector<float>* residual);

// Allows for x rounded to 8 bits in blocks of 32 along K before the product (the integer-dot
// matrix-vector kernel, vkattn/ops/matmul_variant.hpp): each x value moves by at most half its
// block's step max|x| / 127, so output (m, n) by at most sum_k |w[n, k]| max|x[m, block(k)]| / 254
// (before an activation; x [M, K], w [N, K], K a multiple of 32).
void addXRounding8Bit(MatmulRef& ref, const std::vector<float>& x, const std::vector<float>& w, std::size_t m,
                      std::size_t n, std::size_t k);

// y = act(gate) * up from the two products' references (gatedLinear), with each product's
// tolerance e = atol + rtol |p| + dotRtol sum_k |x w| (+ its extra) carried through the gate into
// `extra`: |act'| <= 1.2 for every activation the kernels offer (SiLU's peaks at 1.10, tanh GELU's
// at 1.13), so |y - ref| <= 1.2 e_gate (|up| + e_up) + |act(gate)| e_up. Compare with dotRtol 0.
MatmulRef gatedRef(const MatmulRef& gate, const MatmulRef& up, Activation activation, double atol, double rtol,
                   double dotRtol);

ErrorStats compareDot(const std::vector<float>& got, const MatmulRef& ref, double atol, double rtol, double dotRtol);

}  // namespace vkattn::reference
