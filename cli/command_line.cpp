#include "command_line.hpp"

#include <cstring>
#include <exception>
#include <iostream>

#include "vkattn/core/instance.hpp"

namespace vkattn::cli {

void splitArguments(int argc, char** argv, int first, CommonOptions& options, std::vector<std::string>& rest) {
  for (int i = first; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--device") && i + 1 < argc)
      options.device = argv[++i];
    else
      rest.emplace_back(argv[i]);
  }
}

int exitStatusOf(const std::function<int()>& command) {
  try {
    const int status = command();
    if (const std::size_t messages = Instance::processValidationMessageCount()) {
      std::cerr << "vkattn: the validation layer reported " << messages << " message(s)\n";
      return status ? status : 1;
    }
    return status;
  } catch (const std::exception& e) {
    std::cerr << "vkattn: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace vkattn::cli
