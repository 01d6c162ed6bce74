// The runtime names its arguments as C++ does ('q', 'keepMask'); a Python function's errors name
// them as its caller wrote them ('query', 'attn_mask').
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "vkattn/core/error.hpp"

namespace vkattn::python {

using ArgumentNames = std::vector<std::pair<std::string, std::string>>;  // runtime's name, Python's

// Runs `work`; an InvalidArgument naming a runtime name in `names` is thrown again naming
// Python's.
template <class Work>
auto withPythonNames(const ArgumentNames& names, Work&& work) {
  try {
    return work();
  } catch (const InvalidArgument& e) {
    for (const auto& [runtime, python] : names)
      if (e.argument() == runtime) throw InvalidArgument(python, e.problem());
    throw;
  }
}

}  // namespace vkattn::python
