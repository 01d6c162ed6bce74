#include "vkattn/core/scratch_arena.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "vkattn/core/buffer.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

// The smallest chunk: a decode step's partial records and tables fit many times over.
constexpr std::size_t kMinChunk = std::size_t{1} << 20;
// Offsets of temporaries: a multiple of every device's buffer alignment seen, and of the chunk's own.
constexpr std::size_t kBlockAlignment = 256;

std::size_t alignUp(std::size_t x, std::size_t to) {
  return (x + to - 1) / to * to;
}

bool reuseFromEnvironment() {
  const char* v = std::getenv("VKATTN_SCRATCH_ARENA");
  return !(v && std::strcmp(v, "0") == 0);
}

}  // namespace

ScratchArena::ScratchArena(const Device& device) : m_device(device), m_reuse(reuseFromEnvironment()) {}

ScratchArena::~ScratchArena() = default;

std::size_t ScratchArena::capacity() const noexcept {
  std::size_t total = 0;
  for (const auto& c : m_chunks) total += c->size();
  return total;
}

Buffer& ScratchArena::carve(std::size_t bytes, const char* what) {
  const auto limit = static_cast<std::size_t>(m_device.info().maxStorageBufferRange);
  if (bytes == 0 || bytes > limit)
    throw Unsupported(std::string(what) + " needs " + std::to_string(bytes) + " bytes in one binding; " +
                      m_device.info().name + " allows " + std::to_string(limit));
  if (!m_reuse) {
    m_blocks.push_back(std::make_unique<Buffer>(m_device, bytes));
    ++m_allocations;
    return *m_blocks.back();
  }
  auto aligned = [&](std::size_t x) {
    const std::size_t a =
        m_chunks.empty() ? kBlockAlignment : std::max(kBlockAlignment, m_chunks[0]->memoryAlignment());
    return alignUp(x, a);
  };
  const std::size_t size = aligned(bytes);
  m_needed += size;
  m_highWater = std::max(m_highWater, m_needed);
  // The current chunk, else a later one with room (left from an earlier, larger recording), else
  // a new chunk: the most any recording needed, or twice the capacity so far (at least the block
  // and 1 MiB, at most one binding).
  while (m_current < m_chunks.size() && aligned(m_used) + bytes > m_chunks[m_current]->size()) {
    ++m_current;
    m_used = 0;
  }
  if (m_current == m_chunks.size()) {
    const std::size_t chunk = std::min(limit, std::max({size, kMinChunk, m_highWater, 2 * capacity()}));
    m_chunks.push_back(std::make_unique<Buffer>(m_device, chunk));
    ++m_allocations;
    m_used = 0;
  }
  const std::size_t offset = aligned(m_used);
  try {
    m_blocks.push_back(std::make_unique<Buffer>(*m_chunks[m_current], offset, bytes));
  } catch (const Unsupported&) {  // the device wants other memory for it: memory of its own
    m_blocks.push_back(std::make_unique<Buffer>(m_device, bytes));
    ++m_allocations;
    return *m_blocks.back();
  }
  m_used = offset + bytes;
  return *m_blocks.back();
}

const Buffer& ScratchArena::allocate(std::size_t bytes, const char* what) {
  return carve(bytes, what);
}

const Buffer& ScratchArena::upload(const void* data, std::size_t bytes, const char* what) {
  Buffer& block = carve(bytes, what);
  block.write(data, bytes);
  return block;
}

void ScratchArena::reset() noexcept {
  m_blocks.clear();                           // the temporaries first: they borrow the chunks' memory
  if (m_chunks.size() > 1) m_chunks.clear();  // grown: one chunk of m_highWater at the next allocation
  m_current = 0;
  m_used = 0;
  m_needed = 0;
}

}  // namespace vkattn
