// vkattn_khr_check FILE...: structural checks of SPV_KHR_cooperative_matrix modules (binary .spv
// or glslc -mfmt=num text), for SPIRV-Tools too old to validate them. Exit 1 on any problem.
#include <fstream>
#include <iostream>
#include <iterator>

#include "khr_check.hpp"
#include "number_text_file.hpp"

namespace {

std::vector<uint32_t> readModule(const std::string& path) {
  if (path.ends_with(".spv")) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::vector<char> bytes(std::istreambuf_iterator<char>(in), {});
    if (bytes.size() % 4 != 0) throw std::runtime_error(path + " is not a whole number of 32-bit words");
    std::vector<uint32_t> words(bytes.size() / 4);
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(words.data()));
    return words;
  }
  return vkattn::spirv::readNumberTextFile(path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: vkattn_khr_check MODULE...\n";
    return 2;
  }
  int failed = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::string> problems;
    try {
      problems = vkattn::spirv::checkKhrModule(readModule(argv[i]));
    } catch (const std::exception& e) {
      problems = {e.what()};
    }
    for (const auto& p : problems) std::cerr << argv[i] << ": " << p << "\n";
    if (problems.empty()) std::cout << argv[i] << ": KHR cooperative-matrix structure valid\n";
    failed += !problems.empty();
  }
  return failed ? 1 : 0;
}
