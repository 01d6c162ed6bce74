// What the vkattn and vkattn-conformance programs share around their commands: the common
// options taken out of the arguments, and the exit status of a command run to its end.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "commands.hpp"

namespace vkattn::cli {

// argv[first..]: --device X into options, every other word into rest, in order.
void splitArguments(int argc, char** argv, int first, CommonOptions& options, std::vector<std::string>& rest);

// The command's exit status; 1 (with its message on stderr) if it throws, and 1 where it
// succeeded but the validation layer reported anything (VKATTN_VALIDATION=1 fails the command as
// it fails a test).
int exitStatusOf(const std::function<int()>& command);

}  // namespace vkattn::cli
