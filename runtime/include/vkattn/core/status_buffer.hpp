// StatusBuffer: where kernels report bad input (NaN, ids out of range) during one submission.
// Each dispatch takes a slot (one uint in host-visible memory); bit i of it stands for the i-th
// argument named when the slot was taken. After the submission, check() turns the first set bit
// into InvalidArgument naming that argument.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vkattn/core/buffer.hpp"

namespace vkattn {

class Device;

// Where one dispatch reports: the uint at `slot` in `buffer`.
struct StatusSlot {
  const Buffer* buffer = nullptr;
  uint32_t slot = 0;
};

class StatusBuffer {
 public:
  explicit StatusBuffer(const Device& device) : m_device(&device) {}

  // A slot for one dispatch of `op` whose inputs are `arguments`; a problem left out or empty
  // reads "input contains NaN".
  StatusSlot take(std::string op, std::vector<std::string> arguments, std::vector<std::string> problems = {});
  // Throws InvalidArgument for the first reported problem, after clearing every slot.
  void check();
  // The same, but the slots stay taken (zeroed) for the next submission of the same recording.
  void checkAndRearm();
  // Clears every slot without reading it.
  void clear() noexcept;

 private:
  void zeroWords() noexcept;
  void throwFirstProblem(bool keepSlots);

  struct Use {
    std::string op;
    std::vector<std::string> arguments;
    std::vector<std::string> problems;
  };
  const Device* m_device;
  std::vector<std::unique_ptr<Buffer>> m_buffers;  // kSlotsPerBuffer uints each
  std::vector<Use> m_uses;                         // one per slot taken, in order
};

}  // namespace vkattn
