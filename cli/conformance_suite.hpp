// The conformance suite's runner, in the vkattn-conformance program (built with the tests).
#pragma once

#include <string>
#include <vector>

#include "commands.hpp"

namespace vkattn::cli {

// The suite (the test programs' cases) on the chosen device with the options of `vkattn
// conformance`; prints the per-kernel table. Exit status 1 if any case fails, 2 for bad arguments.
int runConformanceSuite(const CommonOptions& options, const std::vector<std::string>& args);

}  // namespace vkattn::cli
