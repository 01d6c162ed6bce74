// The worst comparison of the running conformance case, for reports such as `vkattn conformance`:
// the tests' allClose() notes every comparison; a test listener takes the record when the case
// ends. One record per process.
#pragma once

#include "vkattn/reference/error_stats.hpp"

namespace vkattn::conformance {

struct CaseRecord {
  int comparisons = 0;
  double maxAbs = 0.0;
  double worstRatio = 0.0;  // error / tolerance of the worst element; <= 1 passes
};

void noteComparison(const reference::ErrorStats& stats);
// Returns the record of the comparisons since the last call and starts a new one.
CaseRecord takeCaseRecord();

}  // namespace vkattn::conformance
