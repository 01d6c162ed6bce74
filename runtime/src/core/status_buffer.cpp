#include "vkattn/core/status_buffer.hpp"

#include <cstring>

#include "vkattn/core/error.hpp"

namespace vkattn {
namespace {

constexpr uint32_t kSlotsPerBuffer = 1024;

}  // namespace

StatusSlot StatusBuffer::take(std::string op, std::vector<std::string> arguments, std::vector<std::string> problems) {
  const std::size_t index = m_uses.size();
  const std::size_t bufferIndex = index / kSlotsPerBuffer;
  if (bufferIndex == m_buffers.size()) {
    m_buffers.push_back(
        std::make_unique<Buffer>(*m_device, kSlotsPerBuffer * sizeof(uint32_t), BufferUsage::HostStorage));
    if (void* words = m_buffers.back()->mapped()) std::memset(words, 0, kSlotsPerBuffer * sizeof(uint32_t));
  }
  m_uses.push_back({std::move(op), std::move(arguments), std::move(problems)});
  return {m_buffers[bufferIndex].get(), static_cast<uint32_t>(index % kSlotsPerBuffer)};
}

void StatusBuffer::check() {
  throwFirstProblem(false);
}

void StatusBuffer::checkAndRearm() {
  throwFirstProblem(true);
}

void StatusBuffer::throwFirstProblem(bool keepSlots) {
  std::string failure, failedArgument;
  for (std::size_t i = 0; i < m_uses.size() && failure.empty(); ++i) {
    const auto* words = static_cast<const uint32_t*>(m_buffers[i / kSlotsPerBuffer]->mapped());
    const uint32_t bits = words ? words[i % kSlotsPerBuffer] : 0u;  // none: a compile-only device ran nothing
    for (std::size_t bit = 0; bit < m_uses[i].arguments.size(); ++bit)
      if (bits & (1u << bit)) {
        failedArgument = m_uses[i].arguments[bit];
        const auto& problems = m_uses[i].problems;
        const bool custom = bit < problems.size() && !problems[bit].empty();
        failure = m_uses[i].op + ": " + (custom ? problems[bit] : "input contains NaN");
        break;
      }
  }
  if (keepSlots)
    zeroWords();
  else
    clear();
  if (!failure.empty()) throw InvalidArgument(failedArgument, failure);
}

void StatusBuffer::zeroWords() noexcept {
  for (const auto& buffer : m_buffers)
    if (void* words = buffer->mapped()) std::memset(words, 0, kSlotsPerBuffer * sizeof(uint32_t));
}

void StatusBuffer::clear() noexcept {
  zeroWords();
  m_uses.clear();
}

}  // namespace vkattn
