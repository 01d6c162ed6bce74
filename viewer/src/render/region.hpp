// The part of a map a view shows, in fractional cells: what --region sets and zoom and pan move.
#pragma once

namespace vkattn::viewer {

struct Region {
  double rowBegin = 0, rowEnd = 0, colBegin = 0, colEnd = 0;  // fractional cells; all 0: whole map
  bool whole() const { return rowEnd <= rowBegin || colEnd <= colBegin; }
};

}  // namespace vkattn::viewer
