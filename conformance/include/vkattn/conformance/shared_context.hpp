// The one Context of a conformance run (a test program, or `vkattn conformance`): created on first
// use with Khronos validation on unless VKATTN_VALIDATION=0, its device named on stdout, and kept
// until the process ends.
#pragma once

#include "vkattn/core/context.hpp"

namespace vkattn::conformance {

Context& sharedContext();

}  // namespace vkattn::conformance
