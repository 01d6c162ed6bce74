// Buffer: one VkBuffer with its own memory. Storage buffers live in device-local memory; where
// that memory is host-visible (CPU drivers, UMA, resizable BAR) they are mapped directly,
// otherwise host reads and writes go through a staging buffer and a transfer.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace vkattn {

class Device;

// Storage: device-local storage buffer. Staging: host-visible transfer buffer. HostStorage:
// host-visible storage buffer for small results the host reads after each submission.
enum class BufferUsage { Storage, Staging, HostStorage };

class Buffer {
 public:
  Buffer() = default;
  Buffer(const Device& device, std::size_t bytes, BufferUsage usage = BufferUsage::Storage);
  // A storage buffer over bytes [offset, offset + bytes) of `memory`'s device memory, which it
  // borrows (it must outlive this buffer): a sub-allocation without vkAllocateMemory. `offset` is a
  // multiple of memory.memoryAlignment(); throws Unsupported where the device would need another
  // memory type for it.
  Buffer(const Buffer& memory, std::size_t offset, std::size_t bytes);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const noexcept { return m_buffer; }
  std::size_t size() const noexcept { return m_size; }
  // Host pointer when the memory is host-visible, else nullptr.
  void* mapped() const noexcept { return m_mapped; }

  // Copy from/to host memory at a byte offset (through staging if the memory is not mapped, and
  // reads also where it is uncached VRAM behind resizable BAR: see readsThroughStaging).
  void write(const void* data, std::size_t bytes, std::size_t offset = 0);
  void read(void* data, std::size_t bytes, std::size_t offset = 0) const;
  VkMemoryPropertyFlags memoryFlags() const noexcept { return m_memoryFlags; }
  // The alignment the device asks of a storage buffer's memory offset.
  std::size_t memoryAlignment() const noexcept { return m_memoryAlignment; }

 private:
  void release() noexcept;

  const Device* m_device = nullptr;
  VkBuffer m_buffer = VK_NULL_HANDLE;
  VkDeviceMemory m_memory = VK_NULL_HANDLE;
  std::size_t m_size = 0;
  void* m_mapped = nullptr;
  VkMemoryPropertyFlags m_memoryFlags = 0;
  uint32_t m_memoryType = 0;
  std::size_t m_memoryAlignment = 1;
  bool m_ownsMemory = true;
};

// Whether host reads of memory with `flags` go through a staging buffer: unmapped memory, and on
// discrete GPUs mapped but uncached device-local memory (resizable BAR: CPU reads over PCIe run at
// a few MB/s) when a host-cached memory type exists. CPU drivers and integrated GPUs read directly.
bool readsThroughStaging(VkMemoryPropertyFlags flags, bool discreteGpu, bool hostCachedMemoryExists) noexcept;

// Copies `bytes` between two buffers on the device's queue and waits.
void copyBuffer(const Device& device, const Buffer& from, std::size_t fromOffset, const Buffer& to,
                std::size_t toOffset, std::size_t bytes);
// Copies byte ranges between two distinct buffers in one submission and waits (e.g. new KV rows
// into their cache slots). Every range must lie inside both buffers: InvalidArgument otherwise.
void copyRegions(const Device& device, const Buffer& from, const Buffer& to, std::span<const VkBufferCopy> regions);

}  // namespace vkattn
