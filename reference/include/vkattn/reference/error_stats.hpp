// Error statistics of a result against a double-precision reference: max/mean absolute and
// relative error and the worst element. No test framework needed (the CLI and benchmarks use it).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace vkattn::reference {

struct ErrorStats {
  double maxAbs = 0.0;
  double maxRel = 0.0;  // |got - ref| / |ref| over elements with |ref| > 1e-6
  double meanAbs = 0.0;
  std::size_t worst = 0;  // index with the largest excess over the tolerance
  double worstGot = 0.0, worstExpected = 0.0;
  std::size_t failures = 0;  // elements outside atol + rtol |ref|
  double worstRatio = 0.0;   // max |got - ref| / (atol + rtol |ref|): <= 1 passes
  std::size_t count = 0;
};

ErrorStats compare(const std::vector<float>& got, const std::vector<double>& expected, double atol, double rtol);

std::string describe(const ErrorStats& s);

}  // namespace vkattn::reference
