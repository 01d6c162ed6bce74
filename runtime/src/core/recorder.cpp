#include "vkattn/core/recorder.hpp"

#include <cstdlib>
#include <string>

#include "vkattn/core/buffer.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/dispatch_trace.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/pipeline.hpp"

namespace vkattn {
namespace {

uint32_t partSize() {
  const char* value = std::getenv("VKATTN_PART_DISPATCHES");
  if (!value || !*value) return Recorder::kPartDispatches;
  const std::string text(value);
  if (text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos)
    throw InvalidArgument("VKATTN_PART_DISPATCHES", "'" + text + "', expected a number of dispatches (0: none)");
  return static_cast<uint32_t>(std::stoul(text));
}

}  // namespace

Recorder::Recorder(const Device& device, bool replayable)
    : m_device(device),
      m_commands(device.compileOnly() ? std::nullopt
                                      : std::optional<CommandContext>(std::in_place, device, true, replayable)),
      m_descriptors(device),
      m_timestamps(device),
      m_status(device),
      m_scratch(device),
      m_partSize(replayable ? 0 : partSize()),
      m_replayable(replayable) {
  if (!device.compileOnly() && !replayable && DispatchTrace::requested())
    m_trace = std::make_unique<DispatchTrace>(device);
}

Recorder::~Recorder() {
  discard();
}

void Recorder::begin() {
  if (m_recording) return;
  m_commands->begin();
  m_timestamps.recordReset(m_commands->buffer());
  if (m_trace) m_trace->begin(m_commands->buffer());
  m_recording = true;
}

void Recorder::dispatch(const Pipeline& pipeline, std::span<const Bind> buffers, const void* push, uint32_t pushBytes,
                        GroupCount groups) {
  if (buffers.size() != pipeline.bindingCount())
    throw Error(pipeline.name() + ": " + std::to_string(buffers.size()) + " buffers for " +
                std::to_string(pipeline.bindingCount()) + " bindings");
  std::vector<const Buffer*> byBinding(pipeline.bindingCount(), nullptr);
  for (const Bind& b : buffers) {
    if (b.binding >= byBinding.size() || byBinding[b.binding] || !b.buffer)
      throw Error(pipeline.name() + ": binding " + std::to_string(b.binding) +
                  (b.binding >= byBinding.size() ? " does not exist"
                   : b.buffer                    ? " named twice"
                                                 : " has no buffer"));
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
  if (m_finished) throw Error(pipeline.name() + ": a replay's recording has ended; nothing more is recorded into it");
  ++m_dispatchesRecorded;
  if (m_device.compileOnly()) {  // checked and compiled: nothing is recorded
    ++m_dispatches;
    return;
  }
  begin();

  VkDescriptorSet set = m_descriptors.allocate(pipeline.setLayout());
  VkCommandBuffer cmd = m_commands->buffer();
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
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                         &barrier, 0, nullptr, 0, nullptr);
  }
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &set, 0, nullptr);
  if (pushBytes) vkCmdPushConstants(cmd, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes, push);
  vkCmdDispatch(cmd, groups.x, groups.y, groups.z);
  if (m_trace) m_trace->after(cmd, pipeline.name());
  ++m_dispatches;
  if (++m_partDispatches == m_partSize && m_timestamps.used() == 0) {
    m_commands->submitPart();
    m_partDispatches = 0;
    if (m_trace) m_trace->partStarted(m_commands->buffer());
  }
}

uint32_t Recorder::timestamp() {
  if (m_device.compileOnly()) throw Unsupported("a compile-only context runs nothing: it takes no timestamps");
  if (m_replayable) throw Unsupported("a replay takes no timestamps: time its submissions on the host");
  if (!m_timestamps.supported()) throw Unsupported("this device's compute queue has no timestamps");
  begin();
  return m_timestamps.record(m_commands->buffer());
}

StatusSlot Recorder::statusSlot(std::string op, std::vector<std::string> arguments, std::vector<std::string> problems) {
  return m_status.take(std::move(op), std::move(arguments), std::move(problems));
}

const Buffer& Recorder::keepAlive(Buffer buffer) {
  m_transient.push_back(std::make_unique<Buffer>(std::move(buffer)));
  return *m_transient.back();
}

const Buffer& Recorder::scratch(std::size_t bytes, const char* what) {
  return m_scratch.allocate(bytes, what);
}

const Buffer& Recorder::upload(const void* data, std::size_t bytes, const char* what) {
  return m_scratch.upload(data, bytes, what);
}

namespace {

// Shader writes made visible to host reads (and copies) after the fence wait.
void barrierToHost(VkCommandBuffer cmd) {
  VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  toHost.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &toHost, 0, nullptr, 0,
                       nullptr);
}

}  // namespace

void Recorder::finishRecording() {
  if (!m_replayable) throw Error("finishRecording: only a replay's recorder keeps its recording");
  if (m_finished) return;
  m_finished = true;
  if (!m_recording) return;  // nothing recorded (or a compile-only device)
  // Host writes to the replay's inputs (before each submission) precede its first reads: the
  // submission itself orders them; shader writes are made visible to the host after each run.
  barrierToHost(m_commands->buffer());
  m_commands->end();
  m_recording = false;
  m_hasRecording = true;
}

void Recorder::replay() {
  if (!m_finished) throw Error("replay: the recording has not been finished");
  if (!m_hasRecording) return;
  m_commands->resubmitAndWait();
  m_status.checkAndRearm();
}

void Recorder::submit() {
  if (m_replayable) throw Error("a replay's recorder submits through replay()");
  if (!m_recording) {  // nothing to run (or a compile-only device): temporaries are free again
    discard();
    return;
  }
  barrierToHost(m_commands->buffer());  // shader writes visible to host reads after the wait
  m_recording = false;
  try {
    m_commands->submitAndWait();
    m_timestamps.collect();
    if (m_trace) m_trace->collect();
    m_status.check();  // the bad-input reports, read before the slots are recycled
  } catch (...) {
    discard();
    throw;
  }
  discard();
}

void Recorder::discard() noexcept {
  if (m_commands) m_commands->reset();
  m_recording = false;
  m_finished = false;
  m_hasRecording = false;
  m_descriptors.reset();
  m_dispatches = 0;
  m_partDispatches = 0;
  m_timestamps.clear();
  if (m_trace) m_trace->clear();
  m_transient.clear();
  m_scratch.reset();
  m_status.clear();
}

double Recorder::elapsedNs(uint32_t from, uint32_t to) const {
  return m_timestamps.elapsedNs(from, to);
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
