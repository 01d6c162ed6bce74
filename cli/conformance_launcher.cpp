// `vkattn conformance`: runs the conformance suite, which is a program of its own
// (vkattn-conformance, built with the tests: its cases are the test programs' own), found next to
// this one, so that the CLI needs no test framework and builds without the tests. Where it is
// missing, says so and how to get it.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <system_error>

#include "commands.hpp"

namespace vkattn::cli {
namespace {

constexpr const char* kProgram = "vkattn-conformance";

// vkattn-conformance beside this executable, or empty where there is none.
std::filesystem::path besideThisProgram() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {};
  const std::filesystem::path program = self.parent_path() / kProgram;
  return std::filesystem::exists(program, error) ? program : std::filesystem::path();
}

}  // namespace

int conformanceCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  const std::filesystem::path program = besideThisProgram();
  if (program.empty()) {
    std::cerr
        << "vkattn: no conformance suite here (" << kProgram
        << " is not beside this program).\n"
           "        It is built with the tests (-DVKATTN_BUILD_TESTS=ON, the default; they need\n"
           "        GoogleTest: Debian libgtest-dev): cmake --build BUILD_DIR --target vkattn_conformance_suite\n";
    return 2;
  }
  std::vector<std::string> words = {program.string()};
  if (options.device) words.insert(words.end(), {"--device", *options.device});
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  execv(argv[0], argv.data());  // returns only on failure
  std::cerr << "vkattn: cannot run " << program.string() << ": " << std::system_category().message(errno) << "\n";
  return 2;
}

}  // namespace vkattn::cli
