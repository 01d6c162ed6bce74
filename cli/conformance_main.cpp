// vkattn-conformance: the shader conformance suite as a program of its own, which `vkattn
// conformance` runs (its options are that command's; conformance_suite.cpp).
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "conformance_suite.hpp"
#include "vkattn/core/instance.hpp"

int main(int argc, char** argv) {
  vkattn::cli::CommonOptions options;
  std::vector<std::string> rest;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--device") && i + 1 < argc)
      options.device = argv[++i];
    else
      rest.emplace_back(argv[i]);
  }
  for (const std::string& word : rest)
    if (word == "--help" || word == "-h") {
      std::cout << "usage: vkattn-conformance [--device INDEX|NAME] [--quick|--full] [--filter PATTERN] [--list]\n"
                   "                          [--json FILE] [--validation] [--verbose]\n"
                   "the shader conformance suite on this device, as `vkattn conformance` runs it\n";
      return 0;
    }
  try {
    const int status = vkattn::cli::runConformanceSuite(options, rest);
    if (const std::size_t messages = vkattn::Instance::processValidationMessageCount()) {
      std::cerr << "vkattn: the validation layer reported " << messages << " message(s)\n";
      return status ? status : 1;
    }
    return status;
  } catch (const std::exception& e) {
    std::cerr << "vkattn: " << e.what() << "\n";
    return 1;
  }
}
