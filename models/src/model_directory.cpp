#include "vkattn/models/model_directory.hpp"

#include <cstdlib>
#include <system_error>

namespace vkattn {
namespace {

// The running executable's folder (Linux /proc), or empty where it cannot be read.
std::filesystem::path executableDirectory() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

}  // namespace

std::vector<std::filesystem::path> modelDirectoryCandidates() {
  if (const char* dir = std::getenv("VKATTN_MODEL_DIR"); dir && *dir) return {dir};
  std::vector<std::filesystem::path> candidates;
  if (const std::filesystem::path exeDir = executableDirectory(); !exeDir.empty()) {
    candidates.push_back(exeDir / "share" / "vkattn" / "models");
    candidates.push_back((exeDir.parent_path() / "share" / "vkattn" / "models").lexically_normal());
  }
  candidates.emplace_back(VKATTN_INSTALL_MODEL_DIR);
  return candidates;
}

std::filesystem::path defaultModelDirectory() {
  const std::vector<std::filesystem::path> candidates = modelDirectoryCandidates();
  for (const std::filesystem::path& dir : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(dir / "en_fr.safetensors", ec)) return dir;
  }
  return candidates.front();
}

}  // namespace vkattn
