// Reading and writing NumPy .npy files (format versions 1-3, little-endian f2/f4/f8/i4/i8, C order).
// Corrupt or truncated files raise vkattn::InvalidArgument naming the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "vkattn/core/tensor.hpp"

namespace vkattn::io {

struct NpyArray {
  std::string descr;  // as in the file, e.g. "<f4"
  Shape shape;
  std::vector<char> data;  // raw little-endian elements, C order
};

NpyArray readNpy(const std::filesystem::path& path);
// Values as float (f2/f4/f8) or int32 (i4/i8, range-checked).
std::vector<float> npyFloats(const NpyArray& array, const std::string& name);
std::vector<int32_t> npyInts(const NpyArray& array, const std::string& name);

void writeNpy(const std::filesystem::path& path, const Shape& shape, const std::vector<float>& values);

}  // namespace vkattn::io
