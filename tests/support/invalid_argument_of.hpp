// The argument an InvalidArgument names, for tests that check which argument a call rejects.
#pragma once

#include <string>

#include "vkattn/core/error.hpp"

namespace vkattn::test {

// Runs f; returns the argument of the InvalidArgument it throws, or "<no InvalidArgument>".
template <typename F>
std::string invalidArgumentOf(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.argument();
  }
  return "<no InvalidArgument>";
}

}  // namespace vkattn::test
