// The bytes of a GGUF file: a read-only memory map of a file on disk, or a vector the caller
// handed over. The file must not shrink while it is mapped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "vkattn/io/gguf.hpp"

namespace vkattn {

class GgufFile::Image {
 public:
  // Throws InvalidArgument(path, ...) when the file cannot be opened or mapped.
  explicit Image(const std::filesystem::path& path);
  explicit Image(std::vector<uint8_t> bytes);
  ~Image();
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;

  std::span<const uint8_t> bytes() const noexcept { return m_bytes; }

 private:
  void* m_map = nullptr;  // from mmap, or null
  std::size_t m_mapBytes = 0;
  std::vector<uint8_t> m_owned;
  std::span<const uint8_t> m_bytes;
};

}  // namespace vkattn
