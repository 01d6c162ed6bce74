// viewer_dump_spirv DIR: writes DIR/<id>.spv for every shader embedded in the viewer's own
// registry, so that spirv-val checks them as it checks the runtime's.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "spirv/viewer_shaders.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: viewer_dump_spirv DIR\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  for (const auto& entry : vkattn::viewer::shaders::shaderRegistry()) {
    const auto file = dir / (std::string(entry.name) + ".spv");
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(entry.code.data()), static_cast<std::streamsize>(entry.code.size_bytes()));
    if (!out) {
      std::cerr << "cannot write " << file << "\n";
      return 1;
    }
  }
  std::cout << vkattn::viewer::shaders::shaderRegistry().size() << " modules written to " << dir << "\n";
  return 0;
}
