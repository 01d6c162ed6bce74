#include "vkattn/conformance/case_record.hpp"

#include <algorithm>

namespace vkattn::conformance {
using namespace vkattn::reference;
namespace {

CaseRecord& current() {
  static CaseRecord record;
  return record;
}

}  // namespace

void noteComparison(const ErrorStats& stats) {
  CaseRecord& r = current();
  ++r.comparisons;
  r.maxAbs = std::max(r.maxAbs, stats.maxAbs);
  r.worstRatio = std::max(r.worstRatio, stats.worstRatio);
}

CaseRecord takeCaseRecord() {
  CaseRecord r = current();
  current() = CaseRecord{};
  return r;
}

}  // namespace vkattn::conformance
