// ScratchArena: the device memory of a Recorder's temporaries (an op's intermediate tensors,
// split-K partial records, small uploaded tables). Each temporary is a buffer of its own over a
// range of a few large chunks of device memory (Buffer's borrowing constructor: no
// vkAllocateMemory), carved by bumping an offset; it lives until the recorded work has run (reset()
// after each submission frees every range). The arena grows on demand: a recording that needed
// more than one chunk gets them replaced by one chunk of the most any recording needed, so a
// steady stream of calls allocates no device memory at all. Freed with the recorder.
// VKATTN_SCRATCH_ARENA=0 gives every temporary memory of its own instead (the cost the arena
// removes, for comparison).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace vkattn {

class Buffer;
class Device;

class ScratchArena {
 public:
  explicit ScratchArena(const Device& device);
  ~ScratchArena();
  ScratchArena(const ScratchArena&) = delete;
  ScratchArena& operator=(const ScratchArena&) = delete;

  // A storage buffer of `bytes` (> 0) bytes, contents undefined, valid until reset(). Throws
  // Unsupported naming `what` when it exceeds one storage binding, and what Buffer throws when the
  // device is out of memory.
  const Buffer& allocate(std::size_t bytes, const char* what = "scratch memory");
  // allocate(bytes), filled with `bytes` bytes from the host.
  const Buffer& upload(const void* data, std::size_t bytes, const char* what = "an uploaded table");
  // Every temporary is released: the work that used them has run (or was dropped).
  void reset() noexcept;

  // Bytes of device memory held in chunks, the chunks, and the device allocations made so far (a
  // steady stream of calls stops adding to them).
  std::size_t capacity() const noexcept;
  std::size_t chunks() const noexcept { return m_chunks.size(); }
  std::size_t allocations() const noexcept { return m_allocations; }

 private:
  Buffer& carve(std::size_t bytes, const char* what);

  const Device& m_device;
  bool m_reuse;
  std::vector<std::unique_ptr<Buffer>> m_chunks;
  std::vector<std::unique_ptr<Buffer>> m_blocks;  // this recording's temporaries
  std::size_t m_current = 0;                      // chunk being carved
  std::size_t m_used = 0;                         // bytes carved from it
  std::size_t m_needed = 0;                       // bytes this recording asked for, aligned
  std::size_t m_highWater = 0;                    // the most any recording asked for
  std::size_t m_allocations = 0;
};

}  // namespace vkattn
