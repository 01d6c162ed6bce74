// libFuzzer target: the .npy reader on arbitrary file contents. Only vkattn::InvalidArgument may
// come out; any other exception, a sanitizer report or a crash is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "vkattn/core/error.hpp"
#include "vkattn/io/npy.hpp"

namespace {

// readNpy takes a path, so each input goes through one file per process.
const std::filesystem::path& scratchFile() {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("vkattn-fuzz-npy-" + std::to_string(getpid()) + ".npy");
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  {
    std::ofstream out(scratchFile(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const vkattn::io::NpyArray array = vkattn::io::readNpy(scratchFile());
    try {
      (void)vkattn::io::npyFloats(array, "x");
    } catch (const vkattn::InvalidArgument&) {
    }
    try {
      (void)vkattn::io::npyInts(array, "x");
    } catch (const vkattn::InvalidArgument&) {
    }
  } catch (const vkattn::InvalidArgument&) {
  }
  return 0;
}
