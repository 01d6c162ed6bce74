// vkattn_dump_spirv DIR: writes DIR/<id>.spv for every shader embedded in the runtime.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "vkattn/core/pipeline.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: vkattn_dump_spirv DIR\n";
    return 2;
  }
  std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  for (const auto& name : vkattn::shaderNames()) {
    auto code = vkattn::shaderCode(name);
    std::ofstream out(dir / (name + ".spv"), std::ios::binary);
    out.write(reinterpret_cast<const char*>(code.data()), static_cast<std::streamsize>(code.size_bytes()));
    if (!out) {
      std::cerr << "cannot write " << (dir / (name + ".spv")) << "\n";
      return 1;
    }
  }
  std::cout << vkattn::shaderNames().size() << " modules written to " << dir << "\n";
  return 0;
}
