#include "compare.hpp"

#include "vkattn/conformance/case_record.hpp"

namespace vkattn::test {
using namespace vkattn::reference;

::testing::AssertionResult allClose(const std::vector<float>& got, const std::vector<double>& expected, double atol,
                                    double rtol) {
  if (got.size() != expected.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " vs reference " << expected.size();
  ErrorStats s = compare(got, expected, atol, rtol);
  conformance::noteComparison(s);
  if (s.failures == 0) return ::testing::AssertionSuccess() << describe(s);
  return ::testing::AssertionFailure() << "atol " << atol << " rtol " << rtol << ": " << describe(s);
}

::testing::AssertionResult differs(const std::vector<float>& got, const std::vector<double>& expected, double atol,
                                   double rtol) {
  if (got.size() != expected.size())  // a defect, not an answer told apart
    return ::testing::AssertionFailure() << "size " << got.size() << " vs reference " << expected.size();
  const ErrorStats s = compare(got, expected, atol, rtol);
  if (s.failures > 0) return ::testing::AssertionSuccess() << describe(s);
  return ::testing::AssertionFailure() << "every element within atol " << atol << " rtol " << rtol << ": "
                                       << describe(s);
}

}  // namespace vkattn::test
