#include "vkattn/core/timestamp_pool.hpp"

#include <vector>

#include "vkattn/core/device.hpp"
#include "vkattn/core/vulkan_error.hpp"

namespace vkattn {

TimestampPool::TimestampPool(const Device& device, uint32_t capacity) : m_device(&device), m_capacity(capacity) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device.physical(), &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(device.physical(), &count, families.data());
  const uint32_t validBits = device.queueFamily() < count ? families[device.queueFamily()].timestampValidBits : 0;
  // This queue cannot time work, or runs none (a compile-only device).
  if (validBits == 0 || device.info().timestampPeriodNs <= 0 || device.compileOnly()) return;
  m_mask = validBits >= 64 ? ~uint64_t{0} : (uint64_t{1} << validBits) - 1;
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = m_capacity;
  checkVk(vkCreateQueryPool(device.handle(), &info, nullptr, m_pool.receive(device.handle())), "vkCreateQueryPool");
}

void TimestampPool::recordReset(VkCommandBuffer cmd) const {
  if (m_pool) vkCmdResetQueryPool(cmd, m_pool.get(), 0, m_capacity);
}

uint32_t TimestampPool::record(VkCommandBuffer cmd) {
  if (!m_pool) throw Unsupported("the compute queue of " + m_device->info().name + " has no timestamps");
  if (m_used >= m_capacity) throw Error("more than " + std::to_string(m_capacity) + " timestamps in one submission");
  // Bottom of pipe: the timestamp is written once all earlier commands have completed.
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, m_pool.get(), m_used);
  return m_used++;
}

void TimestampPool::collect() {
  m_results.assign(m_used, 0);
  if (m_used > 0)
    checkVk(vkGetQueryPoolResults(m_device->handle(), m_pool.get(), 0, m_used, m_results.size() * sizeof(uint64_t),
                                  m_results.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT),
            "vkGetQueryPoolResults");
  for (uint64_t& r : m_results) r &= m_mask;
  m_used = 0;
}

double TimestampPool::elapsedNs(uint32_t from, uint32_t to) const {
  if (from >= m_results.size() || to >= m_results.size()) throw Error("timestamp slot out of range");
  // Modulo the valid bits: a counter that wrapped between the two still gives the right span.
  const uint64_t ticks = (m_results[to] - m_results[from]) & m_mask;
  return static_cast<double>(ticks) * m_device->info().timestampPeriodNs;
}

}  // namespace vkattn
