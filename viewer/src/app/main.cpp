// vkattn-viewer: attention heatmaps of the vkattn runtime, in a window or rendered headless.
#include <iostream>
#include <string>
#include <vector>

#include "app/cli_args.hpp"
#include "app/run.hpp"
#include "vkattn/core/error.hpp"

int main(int argc, char** argv) {
  using namespace vkattn::viewer;
  ViewerArgs args;
  try {
    args = parseArgs(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const vkattn::Error& e) {
    std::cerr << "vkattn-viewer: " << e.what() << "\n(see vkattn-viewer --help)\n";
    return 2;
  }
  if (args.help) {
    std::cout << usage();
    return 0;
  }
  try {
    return args.headless() ? runHeadless(args) : runWindow(args);
  } catch (const vkattn::InvalidArgument& e) {
    std::cerr << "vkattn-viewer: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "vkattn-viewer: " << e.what() << "\n";
    return 1;
  }
}
