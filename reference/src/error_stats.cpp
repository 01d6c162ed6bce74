#include "vkattn/reference/error_stats.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace vkattn::reference {

ErrorStats compare(const std::vector<float>& got, const std::vector<double>& expected, double atol, double rtol) {
  ErrorStats s;
  s.count = got.size();
  double worstExcess = -1.0;
  double sumAbs = 0.0;
  for (std::size_t i = 0; i < got.size() && i < expected.size(); ++i) {
    const double g = got[i], e = expected[i];
    if (std::isnan(g) && std::isnan(e)) continue;
    const double err = std::fabs(g - e);
    const bool bad = std::isnan(g) || std::isnan(err) || err > atol + rtol * std::fabs(e);
    const double excess = std::isnan(err) ? INFINITY : err - (atol + rtol * std::fabs(e));
    if (!std::isnan(err)) {
      s.maxAbs = std::max(s.maxAbs, err);
      if (std::fabs(e) > 1e-6) s.maxRel = std::max(s.maxRel, err / std::fabs(e));
      sumAbs += err;
    } else {
      s.maxAbs = INFINITY;
    }
    if (bad) ++s.failures;
    const double allowed = atol + rtol * std::fabs(e);
    s.worstRatio =
        std::max(s.worstRatio, std::isnan(err) ? INFINITY : (allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0.0)));
    if (excess > worstExcess) {
      worstExcess = excess;
      s.worst = i;
      s.worstGot = g;
      s.worstExpected = e;
    }
  }
  if (got.size() != expected.size()) s.failures += 1;
  s.meanAbs = s.count ? sumAbs / static_cast<double>(s.count) : 0.0;
  return s;
}

std::string describe(const ErrorStats& s) {
  std::ostringstream out;
  out << "max abs " << s.maxAbs << ", max rel " << s.maxRel << ", mean abs " << s.meanAbs << ", worst at [" << s.worst
      << "] got " << s.worstGot << " expected " << s.worstExpected << ", " << s.failures << "/" << s.count
      << " outside tolerance";
  return out.str();
}

}  // namespace vkattn::reference
