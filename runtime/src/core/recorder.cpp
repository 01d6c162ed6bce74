#include "vkattn/core/recorder.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "vkattn/core/buffer.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/pipeline.hpp"

namespace vkattn {
namespace {

constexpr uint32_t kSetsPerPool = 256;
constexpr uint32_t kStatusSlotsPerBuffer = 1024;

}  // namespace

Recorder::Recorder(const Device& device) : m_device(device) {
  VkDevice dev = device.handle();
  try {
    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    poolInfo.queueFamilyIndex = device.queueFamily();
    checkVk(vkCreateCommandPool(dev, &poolInfo, nullptr, &m_pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = m_pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    checkVk(vkAllocateCommandBuffers(dev, &alloc, &m_cmd), "vkAllocateCommandBuffers");
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    checkVk(vkCreateFence(dev, &fenceInfo, nullptr, &m_fence), "vkCreateFence");
    if (device.info().timestamps) {
      VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
      queryInfo.queryCount = kMaxTimestamps;
      checkVk(vkCreateQueryPool(dev, &queryInfo, nullptr, &m_queries), "vkCreateQueryPool");
    }
  } catch (...) {
    this->~Recorder();
    throw;
  }
}

Recorder::~Recorder() {
  VkDevice dev = m_device.handle();
  if (m_recording) vkEndCommandBuffer(m_cmd);
  m_transient.clear();
  m_statusBuffers.clear();
  for (VkDescriptorPool pool : m_descriptorPools) vkDestroyDescriptorPool(dev, pool, nullptr);
  m_descriptorPools.clear();
  if (m_queries) vkDestroyQueryPool(dev, m_queries, nullptr);
  if (m_fence) vkDestroyFence(dev, m_fence, nullptr);
  if (m_pool) vkDestroyCommandPool(dev, m_pool, nullptr);
  m_queries = VK_NULL_HANDLE;
  m_fence = VK_NULL_HANDLE;
  m_pool = VK_NULL_HANDLE;
}

void Recorder::begin() {
  if (m_recording) return;
  VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  checkVk(vkBeginCommandBuffer(m_cmd, &info), "vkBeginCommandBuffer");
  if (m_queries) vkCmdResetQueryPool(m_cmd, m_queries, 0, kMaxTimestamps);
  m_recording = true;
}

VkDescriptorSet Recorder::allocateSet(VkDescriptorSetLayout layout) {
  VkDevice dev = m_device.handle();
  for (;;) {
    if (m_activePool == m_descriptorPools.size()) {
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * 8};
      VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      info.maxSets = kSetsPerPool;
      info.poolSizeCount = 1;
      info.pPoolSizes = &size;
      VkDescriptorPool pool;
      checkVk(vkCreateDescriptorPool(dev, &info, nullptr, &pool), "vkCreateDescriptorPool");
      m_descriptorPools.push_back(pool);
    }
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = m_descriptorPools[m_activePool];
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &layout;
    VkDescriptorSet set;
    VkResult result = vkAllocateDescriptorSets(dev, &alloc, &set);
    if (result == VK_SUCCESS) return set;
    if (result != VK_ERROR_OUT_OF_POOL_MEMORY && result != VK_ERROR_FRAGMENTED_POOL)
      throw VulkanError("vkAllocateDescriptorSets", result);
    ++m_activePool;  // this pool is full: move on to the next (created above if needed)
  }
}

void Recorder::dispatch(const Pipeline& pipeline, std::initializer_list<Bind> buffers, const void* push,
                        uint32_t pushBytes, GroupCount groups) {
  if (buffers.size() != pipeline.bindingCount())
    throw Error(pipeline.name() + ": " + std::to_string(buffers.size()) + " buffers for " +
                std::to_string(pipeline.bindingCount()) + " bindings");
  std::vector<const Buffer*> byBinding(pipeline.bindingCount(), nullptr);
  for (const Bind& b : buffers) {
    if (b.binding >= byBinding.size() || byBinding[b.binding] || !b.buffer)
      throw Error(pipeline.name() + ": binding " + std::to_string(b.binding) +
                  (b.binding >= byBinding.size() ? " does not exist" : b.buffer ? " named twice" : " has no buffer"));
    byBinding[b.binding] = b.buffer;
  }
  if (pushBytes != pipeline.pushConstantBytes())
    throw Error(pipeline.name() + ": push constants of " + std::to_string(pushBytes) + " bytes, layout has " +
                std::to_string(pipeline.pushConstantBytes()));
  const auto& limits = m_device.info();
  if (groups.x > limits.maxWorkgroupCount[0] || groups.y > limits.maxWorkgroupCount[1] ||
      groups.z > limits.maxWorkgroupCount[2])
    throw Unsupported(pipeline.name() + ": dispatch exceeds the device's workgroup count limits");
  for (const Buffer* b : byBinding)
    if (b->size() > limits.maxStorageBufferRange)
      throw Unsupported(pipeline.name() + ": a buffer of " + std::to_string(b->size()) +
                        " bytes exceeds the device's maxStorageBufferRange of " +
                        std::to_string(limits.maxStorageBufferRange) + " bytes");
  begin();

  VkDescriptorSet set = allocateSet(pipeline.setLayout());
  std::vector<VkDescriptorBufferInfo> infos;
  infos.reserve(byBinding.size());
  for (const Buffer* b : byBinding) infos.push_back({b->handle(), 0, VK_WHOLE_SIZE});
  std::vector<VkWriteDescriptorSet> writes(infos.size(), VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET});
  for (uint32_t i = 0; i < writes.size(); ++i) {
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(m_device.handle(), static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);

  if (m_dispatches > 0) {
    // Earlier dispatches' shader writes must land before this dispatch reads or overwrites them
    // (read-after-write and write-after-write between consecutive ops).
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(m_cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                         &barrier, 0, nullptr, 0, nullptr);
  }
  vkCmdBindPipeline(m_cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
  vkCmdBindDescriptorSets(m_cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &set, 0, nullptr);
  if (pushBytes) vkCmdPushConstants(m_cmd, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes, push);
  vkCmdDispatch(m_cmd, groups.x, groups.y, groups.z);
  ++m_dispatches;
}

uint32_t Recorder::timestamp() {
  if (!m_queries) throw Unsupported("this device's compute queue has no timestamps");
  if (m_timestamps >= kMaxTimestamps) throw Error("more than 256 timestamps in one submission");
  begin();
  // Bottom of pipe: the timestamp is written once all earlier commands have completed.
  vkCmdWriteTimestamp(m_cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, m_queries, m_timestamps);
  return m_timestamps++;
}

StatusSlot Recorder::statusSlot(std::string op, std::vector<std::string> arguments,
                                std::vector<std::string> problems) {
  const std::size_t index = m_statusUses.size();
  const std::size_t bufferIndex = index / kStatusSlotsPerBuffer;
  if (bufferIndex == m_statusBuffers.size()) {
    m_statusBuffers.push_back(
        std::make_unique<Buffer>(m_device, kStatusSlotsPerBuffer * sizeof(uint32_t), BufferUsage::HostStorage));
    std::memset(m_statusBuffers.back()->mapped(), 0, kStatusSlotsPerBuffer * sizeof(uint32_t));
  }
  m_statusUses.push_back({std::move(op), std::move(arguments), std::move(problems)});
  return {m_statusBuffers[bufferIndex].get(), static_cast<uint32_t>(index % kStatusSlotsPerBuffer)};
}

const Buffer& Recorder::keepAlive(Buffer buffer) {
  m_transient.push_back(std::make_unique<Buffer>(std::move(buffer)));
  return *m_transient.back();
}

void Recorder::submit() {
  if (!m_recording) return;
  // Shader writes must be visible to host reads after the fence wait below.
  VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  toHost.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  vkCmdPipelineBarrier(m_cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &toHost, 0, nullptr, 0,
                       nullptr);
  checkVk(vkEndCommandBuffer(m_cmd), "vkEndCommandBuffer");
  m_recording = false;
  VkDevice dev = m_device.handle();
  VkSubmitInfo submitInfo{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submitInfo.commandBufferCount = 1;
  submitInfo.pCommandBuffers = &m_cmd;
  checkVk(vkResetFences(dev, 1, &m_fence), "vkResetFences");
  checkVk(vkQueueSubmit(m_device.queue(), 1, &submitInfo, m_fence), "vkQueueSubmit");
  checkVk(vkWaitForFences(dev, 1, &m_fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");

  m_results.assign(m_timestamps, 0);
  if (m_timestamps > 0)
    checkVk(vkGetQueryPoolResults(dev, m_queries, 0, m_timestamps, m_results.size() * sizeof(uint64_t),
                                  m_results.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT),
            "vkGetQueryPoolResults");

  // Read the NaN reports before the slots are recycled.
  std::string failure;
  std::string failedArgument;
  for (std::size_t i = 0; i < m_statusUses.size() && failure.empty(); ++i) {
    const auto* words = static_cast<const uint32_t*>(m_statusBuffers[i / kStatusSlotsPerBuffer]->mapped());
    const uint32_t bits = words[i % kStatusSlotsPerBuffer];
    for (std::size_t bit = 0; bit < m_statusUses[i].arguments.size(); ++bit)
      if (bits & (1u << bit)) {
        failedArgument = m_statusUses[i].arguments[bit];
        const auto& problems = m_statusUses[i].problems;
        const bool custom = bit < problems.size() && !problems[bit].empty();
        failure = m_statusUses[i].op + ": " + (custom ? problems[bit] : "input contains NaN");
        break;
      }
  }
  discard();
  if (!failure.empty()) throw InvalidArgument(failedArgument, failure);
}

void Recorder::discard() noexcept {
  if (m_recording) {
    vkEndCommandBuffer(m_cmd);
    m_recording = false;
  }
  vkResetCommandBuffer(m_cmd, 0);
  for (VkDescriptorPool pool : m_descriptorPools) vkResetDescriptorPool(m_device.handle(), pool, 0);
  m_activePool = 0;
  m_dispatches = 0;
  m_timestamps = 0;
  m_transient.clear();
  for (std::size_t i = 0; i < m_statusBuffers.size(); ++i)
    std::memset(m_statusBuffers[i]->mapped(), 0, kStatusSlotsPerBuffer * sizeof(uint32_t));
  m_statusUses.clear();
}

double Recorder::elapsedNs(uint32_t from, uint32_t to) const {
  if (from >= m_results.size() || to >= m_results.size()) throw Error("timestamp slot out of range");
  return static_cast<double>(m_results[to] - m_results[from]) * m_device.info().timestampPeriodNs;
}

GroupCount groupsFor(const Device& device, uint64_t items, uint64_t perGroup) {
  uint64_t groups = (items + perGroup - 1) / perGroup;
  if (groups == 0) groups = 1;
  const uint64_t maxX = device.info().maxWorkgroupCount[0];
  const uint64_t maxY = device.info().maxWorkgroupCount[1];
  GroupCount count;
  if (groups <= maxX) {
    count.x = static_cast<uint32_t>(groups);
    return count;
  }
  count.x = static_cast<uint32_t>(maxX);
  uint64_t y = (groups + maxX - 1) / maxX;
  if (y > maxY) throw Unsupported("work of " + std::to_string(items) + " items exceeds the device's dispatch limits");
  count.y = static_cast<uint32_t>(y);
  return count;
}

}  // namespace vkattn
