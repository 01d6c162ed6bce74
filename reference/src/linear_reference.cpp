#include "vkattn/reference/linear_reference.hpp"

#include <algorithm>
#include <cmath>

namespace vkattn::reference {

double activationRef(double v, Activation activation) {
  switch (activation) {
    case Activation::None:
      return v;
    case Activation::Relu:
      return v > 0 ? v : 0.0;
    case Activation::Gelu:
      return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case Activation::GeluTanh: {
      const double c = std::sqrt(2.0 / 3.14159265358979323846);
      return 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v)));
    }
    case Activation::Silu:
      return v / (1.0 + std::exp(-v));
  }
  return v;
}

MatmulRef matmulRef(const std::vector<float>& a, const std::vector<float>& b, std::size_t batch, std::size_t m,
                    std::size_t n, std::size_t k, bool transposeB, bool broadcastB, double alpha) {
  MatmulRef r;
  r.value.assign(batch * m * n, 0.0);
  r.absDot.assign(batch * m * n, 0.0);
  for (std::size_t bt = 0; bt < batch; ++bt) {
    const float* bb = b.data() + (broadcastB ? 0 : bt * k * n);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double sum = 0.0, abs = 0.0;
        for (std::size_t kk = 0; kk < k; ++kk) {
          const double prod = double(a[(bt * m + i) * k + kk]) * double(transposeB ? bb[j * k + kk] : bb[kk * n + j]);
          sum += prod;
          abs += std::fabs(prod);
        }
        r.value[(bt * m + i) * n + j] = alpha * sum;
        r.absDot[(bt * m + i) * n + j] = std::fabs(alpha) * abs;
      }
  }
  return r;
}

MatmulRef linearRef(const std::vector<float>& x, const std::vector<float>& w, std::size_t m, std::size_t n,
                    std::size_t k, const std::vector<float>* bias, Activation activation,
                    const std::vector<float>* residual) {
  MatmulRef r = matmulRef(x, w, 1, m, n, k, true);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double& v = r.value[i * n + j];
      if (bias) v += (*bias)[j];
      v = activationRef(v, activation);
      if (residual) v += (*residual)[i * n + j];
    }
  return r;
}

void addXRounding8Bit(MatmulRef& ref, const std::vector<float>& x, const std::vector<float>& w, std::size_t m,
                      std::size_t n, std::size_t k) {
  ref.extra.assign(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t k0 = 0; k0 + 32 <= k; k0 += 32) {
      double amax = 0.0;
      for (std::size_t c = k0; c < k0 + 32; ++c) amax = std::max(amax, std::fabs(double(x[i * k + c])));
      for (std::size_t j = 0; j < n; ++j) {
        double absW = 0.0;
        for (std::size_t c = k0; c < k0 + 32; ++c) absW += std::fabs(double(w[j * k + c]));
        ref.extra[i * n + j] += absW * amax / 254.0;
      }
    }
}

MatmulRef gatedRef(const MatmulRef& gate, const MatmulRef& up, Activation activation, double atol, double rtol,
                   double dotRtol) {
  MatmulRef r;
  const std::size_t n = gate.value.size();
  r.value.resize(n);
  r.absDot.assign(n, 0.0);
  r.extra.resize(n);
  const auto tolerance = [&](const MatmulRef& p, std::size_t i) {
    return atol + rtol * std::fabs(p.value[i]) + dotRtol * p.absDot[i] + (p.extra.empty() ? 0.0 : p.extra[i]);
  };
  for (std::size_t i = 0; i < n; ++i) {
    const double g = gate.value[i], u = up.value[i], a = activationRef(g, activation);
    const double eg = tolerance(gate, i), eu = tolerance(up, i);
    r.value[i] = a * u;
    r.extra[i] = 1.2 * eg * (std::fabs(u) + eu) + std::fabs(a) * eu;
  }
  return r;
}

ErrorStats compareDot(const std::vector<float>& got, const MatmulRef& ref, double atol, double rtol, double dotRtol) {
  // compare()'s max / mean errors, then failures and the worst element under the per-element bound.
  ErrorStats s = compare(got, ref.value, atol, rtol);
  s.failures = 0;
  s.worstRatio = 0.0;
  for (std::size_t i = 0; i < got.size() && i < ref.value.size(); ++i) {
    const double e = ref.value[i], err = std::fabs(double(got[i]) - e);
    const double allowed =
        atol + rtol * std::fabs(e) + dotRtol * ref.absDot[i] + (ref.extra.empty() ? 0.0 : ref.extra[i]);
    const double ratio = std::isnan(err) ? INFINITY : err / allowed;
    if (!(ratio <= 1.0)) ++s.failures;
    if (ratio > s.worstRatio || std::isnan(ratio)) {
      s.worstRatio = ratio;
      s.worst = i;
      s.worstGot = got[i];
      s.worstExpected = e;
    }
  }
  if (got.size() != ref.value.size()) ++s.failures;
  return s;
}

}  // namespace vkattn::reference
