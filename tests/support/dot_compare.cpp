#include "dot_compare.hpp"

#include "vkattn/conformance/case_record.hpp"

namespace vkattn::test {
using namespace vkattn::reference;

::testing::AssertionResult dotClose(const std::vector<float>& got, const MatmulRef& ref, double atol, double rtol,
                                    double dotRtol) {
  if (got.size() != ref.value.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " vs reference " << ref.value.size();
  ErrorStats s = compareDot(got, ref, atol, rtol, dotRtol);
  conformance::noteComparison(s);
  if (s.failures == 0) return ::testing::AssertionSuccess() << describe(s);
  return ::testing::AssertionFailure() << "atol " << atol << " rtol " << rtol << " dotRtol " << dotRtol
                                       << ": worst ratio " << s.worstRatio << ", " << describe(s);
}

}  // namespace vkattn::test
