// vkattn_nv_to_khr IN OUT: rewrites one glslc -mfmt=num module from SPV_NV_cooperative_matrix to
// SPV_KHR_cooperative_matrix and checks the result; a module that cannot be rewritten fails the
// build with the reason.
#include <filesystem>
#include <iostream>

#include "khr_check.hpp"
#include "number_text_file.hpp"
#include "nv_to_khr.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: vkattn_nv_to_khr IN.spv.inc OUT.spv.inc\n";
    return 2;
  }
  using namespace vkattn::spirv;
  try {
    const std::vector<uint32_t> khr = rewriteNvToKhr(readNumberTextFile(argv[1]));
    const std::vector<std::string> problems = checkKhrModule(khr);
    for (const auto& p : problems) std::cerr << argv[2] << ": " << p << "\n";
    if (!problems.empty()) return 1;
    writeNumberTextFile(argv[2], khr);
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    std::filesystem::remove(argv[2]);
    return 1;
  }
  return 0;
}
