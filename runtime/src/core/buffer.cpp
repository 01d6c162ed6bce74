#include "vkattn/core/buffer.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "vkattn/core/device.hpp"
#include "vkattn/core/fault_injection.hpp"
#include "vkattn/core/submit_once.hpp"
#include "vkattn/core/vulkan_error.hpp"

namespace vkattn {

Buffer::Buffer(const Device& device, std::size_t bytes, BufferUsage usage) : m_device(&device), m_size(bytes) {
  if (bytes == 0) throw InvalidArgument("bytes", "a buffer must hold at least one byte");
  device.requireUsable();
  if (device.compileOnly()) return;  // a size alone: nothing will read or write it
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (usage != BufferUsage::Staging) info.usage |= VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkDevice dev = device.handle();
  checkVk(vkCreateBuffer(dev, &info, nullptr, &m_buffer), "vkCreateBuffer");

  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, m_buffer, &req);
  const VkMemoryPropertyFlags hostFlags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  std::optional<uint32_t> type;
  if (usage == BufferUsage::Staging || usage == BufferUsage::HostStorage)
    type = device.findMemoryType(req.memoryTypeBits, hostFlags, VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  else if (device.unifiedMemory())
    type = device.findMemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | hostFlags);
  else
    type = device.findMemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (!type && usage == BufferUsage::Storage) type = device.findMemoryType(req.memoryTypeBits, 0);
  if (!type) {
    release();
    throw Unsupported("no memory type fits a buffer of " + std::to_string(bytes) + " bytes");
  }

  auto allocate = [&](uint32_t memoryType) {
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = memoryType;
    const std::optional<VkResult> injected = detail::takeInjectedFault(FaultSite::MemoryAllocation);
    return injected ? *injected : vkAllocateMemory(dev, &alloc, nullptr, &m_memory);
  };
  VkResult result = allocate(*type);
  // A storage buffer in host-visible device-local memory (resizable BAR) falls back to plain
  // device-local memory, unmapped (host reads and writes through staging copies), when that heap
  // is exhausted or the mapping fails.
  const bool mappedDeviceLocal = usage == BufferUsage::Storage && device.unifiedMemory();
  bool mapIt = true;
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY && mappedDeviceLocal) {
    if (auto local = device.findMemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) {
      type = local;
      mapIt = false;
      result = allocate(*type);
    }
  }
  if (result != VK_SUCCESS) {
    release();
    const std::string call = "allocating " + std::to_string(bytes) + " bytes (vkAllocateMemory)";
    if (result == VK_ERROR_DEVICE_LOST) device.markLost(call);
    throwVulkanError(call, result);
  }
  result = vkBindBufferMemory(dev, m_buffer, m_memory, 0);
  if (result != VK_SUCCESS) {
    release();
    throw VulkanError("vkBindBufferMemory", result);
  }
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(device.physical(), &props);
  m_memoryFlags = props.memoryTypes[*type].propertyFlags;
  m_memoryType = *type;
  m_memoryAlignment = static_cast<std::size_t>(req.alignment);
  if (mapIt && (props.memoryTypes[*type].propertyFlags & hostFlags) == hostFlags) {
    const std::optional<VkResult> injected = detail::takeInjectedFault(FaultSite::MemoryMapping);
    result = injected ? *injected : vkMapMemory(dev, m_memory, 0, VK_WHOLE_SIZE, 0, &m_mapped);
    if (result != VK_SUCCESS) {
      m_mapped = nullptr;
      if (!mappedDeviceLocal) {  // staging and host-storage buffers exist to be mapped
        release();
        throw VulkanError("vkMapMemory", result);
      }
    }
  }
}

Buffer::Buffer(const Buffer& memory, std::size_t offset, std::size_t bytes)
    : m_device(memory.m_device),
      m_memory(memory.m_memory),
      m_size(bytes),
      m_memoryFlags(memory.m_memoryFlags),
      m_memoryType(memory.m_memoryType),
      m_memoryAlignment(memory.m_memoryAlignment),
      m_ownsMemory(false) {
  if (bytes == 0) throw InvalidArgument("bytes", "a buffer must hold at least one byte");
  if (offset % memory.m_memoryAlignment != 0 || offset > memory.m_size || bytes > memory.m_size - offset)
    throw InvalidArgument("offset", std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                                        " do not lie aligned inside a buffer of " + std::to_string(memory.m_size));
  m_device->requireUsable();
  if (m_device->compileOnly()) return;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkDevice dev = m_device->handle();
  checkVk(vkCreateBuffer(dev, &info, nullptr, &m_buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, m_buffer, &req);
  if (!(req.memoryTypeBits & (1u << m_memoryType)) || offset % req.alignment != 0) {
    release();
    throw Unsupported("a buffer of " + std::to_string(bytes) + " bytes cannot share this memory");
  }
  const VkResult result = vkBindBufferMemory(dev, m_buffer, m_memory, offset);
  if (result != VK_SUCCESS) {
    release();
    throw VulkanError("vkBindBufferMemory", result);
  }
  if (memory.m_mapped) m_mapped = static_cast<char*>(memory.m_mapped) + offset;
}

Buffer::~Buffer() {
  release();
}

Buffer::Buffer(Buffer&& other) noexcept
    : m_device(std::exchange(other.m_device, nullptr)),
      m_buffer(std::exchange(other.m_buffer, VK_NULL_HANDLE)),
      m_memory(std::exchange(other.m_memory, VK_NULL_HANDLE)),
      m_size(std::exchange(other.m_size, 0)),
      m_mapped(std::exchange(other.m_mapped, nullptr)),
      m_memoryFlags(std::exchange(other.m_memoryFlags, 0)),
      m_memoryType(other.m_memoryType),
      m_memoryAlignment(other.m_memoryAlignment),
      m_ownsMemory(other.m_ownsMemory) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    m_device = std::exchange(other.m_device, nullptr);
    m_buffer = std::exchange(other.m_buffer, VK_NULL_HANDLE);
    m_memory = std::exchange(other.m_memory, VK_NULL_HANDLE);
    m_size = std::exchange(other.m_size, 0);
    m_mapped = std::exchange(other.m_mapped, nullptr);
    m_memoryFlags = std::exchange(other.m_memoryFlags, 0);
    m_memoryType = other.m_memoryType;
    m_memoryAlignment = other.m_memoryAlignment;
    m_ownsMemory = other.m_ownsMemory;
  }
  return *this;
}

void Buffer::release() noexcept {
  if (!m_device) return;
  VkDevice dev = m_device->handle();
  if (m_mapped && m_ownsMemory) vkUnmapMemory(dev, m_memory);
  if (m_buffer) vkDestroyBuffer(dev, m_buffer, nullptr);
  if (m_memory && m_ownsMemory) vkFreeMemory(dev, m_memory, nullptr);
  m_mapped = nullptr;
  m_buffer = VK_NULL_HANDLE;
  m_memory = VK_NULL_HANDLE;
}

void Buffer::write(const void* data, std::size_t bytes, std::size_t offset) {
  m_device->requireUsable();
  if (offset + bytes > m_size)
    throw InvalidArgument("bytes", "write of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                                       " overruns a buffer of " + std::to_string(m_size));
  if (bytes == 0 || m_device->compileOnly()) return;  // a compile-only buffer holds nothing
  if (m_mapped) {
    std::memcpy(static_cast<char*>(m_mapped) + offset, data, bytes);
    return;
  }
  Buffer staging(*m_device, bytes, BufferUsage::Staging);
  std::memcpy(staging.mapped(), data, bytes);
  copyBuffer(*m_device, staging, 0, *this, offset, bytes);
}

void Buffer::read(void* data, std::size_t bytes, std::size_t offset) const {
  m_device->requireUsable();
  if (offset + bytes > m_size)
    throw InvalidArgument("bytes", "read of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                                       " overruns a buffer of " + std::to_string(m_size));
  if (bytes == 0) return;
  if (m_device->compileOnly())
    throw Unsupported("a compile-only context runs nothing: there is nothing to read back from " +
                      m_device->info().name);
  const bool hostCachedExists =
      m_device
          ->findMemoryType(~0u, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                    VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
          .has_value();  // the kind of memory a staging buffer prefers
  if (m_mapped &&
      !readsThroughStaging(m_memoryFlags, m_device->info().kind == DeviceKind::Discrete, hostCachedExists)) {
    std::memcpy(data, static_cast<const char*>(m_mapped) + offset, bytes);
    return;
  }
  Buffer staging(*m_device, bytes, BufferUsage::Staging);
  copyBuffer(*m_device, *this, offset, staging, 0, bytes);
  std::memcpy(data, staging.mapped(), bytes);
}

bool readsThroughStaging(VkMemoryPropertyFlags flags, bool discreteGpu, bool hostCachedMemoryExists) noexcept {
  if (!(flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) return true;
  return discreteGpu && (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) &&
         !(flags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) && hostCachedMemoryExists;
}

void copyBuffer(const Device& device, const Buffer& from, std::size_t fromOffset, const Buffer& to,
                std::size_t toOffset, std::size_t bytes) {
  const VkBufferCopy region{fromOffset, toOffset, bytes};
  copyRegions(device, from, to, {&region, 1});
}

void copyRegions(const Device& device, const Buffer& from, const Buffer& to, std::span<const VkBufferCopy> regions) {
  if (&from == &to) throw InvalidArgument("to", "must be another buffer than 'from'");
  for (const VkBufferCopy& r : regions)
    if (r.size == 0 || r.srcOffset > from.size() || r.size > from.size() - r.srcOffset || r.dstOffset > to.size() ||
        r.size > to.size() - r.dstOffset)
      throw InvalidArgument("regions", "a copy of " + std::to_string(r.size) + " bytes from offset " +
                                           std::to_string(r.srcOffset) + " to " + std::to_string(r.dstOffset) +
                                           " is empty or overruns a buffer");
  if (regions.empty()) return;
  submitOnce(device, [&](VkCommandBuffer cmd) {
    // Earlier submissions were waited on by their fences, so no barrier is needed before the copy.
    vkCmdCopyBuffer(cmd, from.handle(), to.handle(), static_cast<uint32_t>(regions.size()), regions.data());
    // Make the transfer's writes visible to host reads once the fence signals.
    VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, nullptr, 0,
                         nullptr);
  });
}

}  // namespace vkattn
