#include "gguf_image.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

// Closes the descriptor on every path out of the constructor; the mapping outlives it.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

GgufFile::Image::Image(const std::filesystem::path& path) {
  const std::string name = path.string();
  Descriptor file{::open(name.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw InvalidArgument(name, std::string("cannot open the file: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0)
    throw InvalidArgument(name, std::string("cannot stat the file: ") + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) throw InvalidArgument(name, "is not a regular file");
  m_mapBytes = static_cast<std::size_t>(info.st_size);
  if (m_mapBytes == 0) return;  // mmap refuses empty files; the parser reports the missing header
  void* map = ::mmap(nullptr, m_mapBytes, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (map == MAP_FAILED) throw InvalidArgument(name, std::string("cannot map the file: ") + std::strerror(errno));
  m_map = map;
  m_bytes = {static_cast<const uint8_t*>(map), m_mapBytes};
}

GgufFile::Image::Image(std::vector<uint8_t> bytes) : m_owned(std::move(bytes)), m_bytes(m_owned) {}

GgufFile::Image::~Image() {
  if (m_map) ::munmap(m_map, m_mapBytes);
}

}  // namespace vkattn
