#include "pipeline_trace.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace vkattn::detail {
namespace {

const char* traceFile() {
  static const char* const file = [] {
    const char* value = std::getenv("VKATTN_PIPELINE_TRACE");
    return value && *value ? value : nullptr;
  }();
  return file;
}

}  // namespace

bool pipelineTraceRequested() {
  return traceFile() != nullptr;
}

void tracePipelineBuild(const std::string& module, const SpecConstants& constants, double milliseconds) {
  const char* file = traceFile();
  if (!file) return;
  std::vector<SpecConstants::Entry> entries = constants.entries();
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  std::string line = program_invocation_short_name;
  line.append("\t").append(module).append("\t");
  for (std::size_t i = 0; i < entries.size(); ++i)
    line.append(i ? "," : "").append(std::to_string(entries[i].id)).append("=").append(std::to_string(entries[i].word));
  char ms[32];
  std::snprintf(ms, sizeof ms, "\t%.1f\n", milliseconds);
  line += ms;
  const int fd = ::open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  [[maybe_unused]] const ssize_t written = ::write(fd, line.data(), line.size());
  ::close(fd);
}

}  // namespace vkattn::detail
