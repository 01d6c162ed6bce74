// A read position in a GGUF file image that never passes its end: every read first checks that
// its bytes are there and otherwise throws InvalidArgument(file, ...) saying what was being read,
// where, and where the file ends. Values are little-endian whatever the host.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>

#include "vkattn/core/error.hpp"

namespace vkattn {

class GgufCursor {
 public:
  GgufCursor(std::span<const uint8_t> bytes, const std::string& fileName) : m_bytes(bytes), m_fileName(fileName) {}

  uint64_t position() const noexcept { return m_position; }
  uint64_t remaining() const noexcept { return m_bytes.size() - m_position; }
  uint64_t size() const noexcept { return m_bytes.size(); }
  const std::string& fileName() const noexcept { return m_fileName; }

  void require(uint64_t bytes, const char* what) const {
    if (bytes > remaining())
      throw InvalidArgument(m_fileName, std::string(what) + " at byte " + std::to_string(m_position) + " needs " +
                                            std::to_string(bytes) + " bytes, but the file ends at byte " +
                                            std::to_string(size()) + " (truncated?)");
  }

  // An integer or float of the file's little-endian representation.
  template <class T>
  T read(const char* what) {
    static_assert(std::is_arithmetic_v<T>);
    require(sizeof(T), what);
    using Bits = std::conditional_t<
        sizeof(T) == 1, uint8_t,
        std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
    Bits bits = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i)
      bits |= static_cast<Bits>(static_cast<Bits>(m_bytes[m_position + i]) << (8 * i));
    m_position += sizeof(T);
    return std::bit_cast<T>(bits);
  }

  // A GGUF string: a u64 byte length, then that many bytes (no terminator).
  std::string readString(const char* what) {
    const uint64_t length = read<uint64_t>(what);
    require(length, what);
    std::string text(reinterpret_cast<const char*>(m_bytes.data() + m_position), static_cast<std::size_t>(length));
    m_position += length;
    return text;
  }

 private:
  std::span<const uint8_t> m_bytes;
  const std::string& m_fileName;
  uint64_t m_position = 0;
};

}  // namespace vkattn
