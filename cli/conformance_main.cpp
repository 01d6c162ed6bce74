// vkattn-conformance: the shader conformance suite as a program of its own, which `vkattn
// conformance` runs (its options are that command's; conformance_suite.cpp).
#include <iostream>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "conformance_suite.hpp"

int main(int argc, char** argv) {
  vkattn::cli::CommonOptions options;
  std::vector<std::string> rest;
  vkattn::cli::splitArguments(argc, argv, 1, options, rest);
  for (const std::string& word : rest)
    if (word == "--help" || word == "-h") {
      std::cout << "usage: vkattn-conformance [--device INDEX|NAME] [--quick|--full] [--filter PATTERN] [--list]\n"
                   "                          [--json FILE] [--validation] [--verbose]\n"
                   "the shader conformance suite on this device, as `vkattn conformance` runs it\n";
      return 0;
    }
  return vkattn::cli::exitStatusOf([&] { return vkattn::cli::runConformanceSuite(options, rest); });
}
