// `vkattn conformance` in a build without the tests (-DVKATTN_BUILD_TESTS=OFF): the suite's cases
// are the test programs' own, so there is nothing to run; say so and how to get it.
#include <iostream>

#include "commands.hpp"

namespace vkattn::cli {

int conformanceCommand(const CommonOptions&, const std::vector<std::string>&) {
  std::cerr << "vkattn: this build has no conformance suite (it was configured with -DVKATTN_BUILD_TESTS=OFF);\n"
               "        rebuild with -DVKATTN_BUILD_TESTS=ON (needs GoogleTest: Debian libgtest-dev) to run it\n";
  return 2;
}

}  // namespace vkattn::cli
