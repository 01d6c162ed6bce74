// The subcommands of the `vkattn` command-line tool. Each returns the process exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace vkattn::cli {

struct CommonOptions {
  std::optional<std::string> device;  // --device X
};

int devicesCommand(const CommonOptions& options);
int pipelinesCommand(const CommonOptions& options, const std::vector<std::string>& args);  // vkattn devices --pipelines
int demoCommand(const CommonOptions& options);
int conformanceCommand(const CommonOptions& options, const std::vector<std::string>& args);
int benchCommand(const CommonOptions& options, const std::vector<std::string>& args);
int runCommand(const CommonOptions& options, const std::vector<std::string>& args);
int translateCommand(const CommonOptions& options, const std::vector<std::string>& args);
int generateCommand(const CommonOptions& options, const std::vector<std::string>& args);
int perplexityCommand(const CommonOptions& options, const std::vector<std::string>& args);
int warmupCommand(const CommonOptions& options, const std::vector<std::string>& args);

}  // namespace vkattn::cli
