// Recorder: collects dispatches until it is submitted. It composes a CommandContext (pool,
// buffer, fence), a DescriptorArena (the sets the dispatches bind), a TimestampPool and a
// StatusBuffer (bad-input reports), and keeps transient buffers alive until the work has run
// (the ops' temporaries come from a ScratchArena, reused across submissions).
// Reusable: submit() waits, then the recorder is empty and ready again. A replayable recorder
// (Replay, vkattn/core/replay.hpp) instead keeps what it recorded, temporaries included, and
// submits it again on each replay().
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vkattn/core/command_context.hpp"
#include "vkattn/core/descriptor_arena.hpp"
#include "vkattn/core/scratch_arena.hpp"
#include "vkattn/core/status_buffer.hpp"
#include "vkattn/core/timestamp_pool.hpp"

namespace vkattn {

class Buffer;
class Device;
class DispatchTrace;
class Pipeline;

struct GroupCount {
  uint32_t x = 1, y = 1, z = 1;
};

// One buffer bound to one binding, by the binding's name in shaders/include/kernel_interface.h:
// {ATTN_BINDING_Q, q.buffer}.
struct Bind {
  uint32_t binding;
  const Buffer* buffer;
};

class Recorder {
 public:
  static constexpr uint32_t kMaxTimestamps = TimestampPool::kDefaultCapacity;
  // A batch is handed to the queue in parts of this many dispatches, so that the device runs one
  // part while the host records the next (a language model's decoding step is about 300 small
  // dispatches); not while the batch holds timestamps, whose spans must not include the host.
  // VKATTN_PART_DISPATCHES=N sets another part size, 0 submits every batch whole.
  static constexpr uint32_t kPartDispatches = 64;

  // `replayable`: recorded once and submitted by replay() (no parts, no timestamps).
  explicit Recorder(const Device& device, bool replayable = false);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Records one dispatch. Each buffer is bound whole to its named binding; every binding of the
  // pipeline must be named exactly once. A barrier before the dispatch orders it after every
  // earlier one in this recorder.
  void dispatch(const Pipeline& pipeline, std::span<const Bind> buffers, const void* push, uint32_t pushBytes,
                GroupCount groups);
  void dispatch(const Pipeline& pipeline, std::initializer_list<Bind> buffers, const void* push, uint32_t pushBytes,
                GroupCount groups) {
    dispatch(pipeline, std::span<const Bind>(buffers.begin(), buffers.size()), push, pushBytes, groups);
  }
  template <typename Push>
  void dispatch(const Pipeline& pipeline, std::initializer_list<Bind> buffers, const Push& push, GroupCount groups) {
    dispatch(pipeline, buffers, &push, sizeof(Push), groups);
  }

  // A status slot for one dispatch of `op` whose inputs are `arguments`. After the submission,
  // a set bit becomes InvalidArgument(arguments[bit], problems[bit]); a problem left out or empty
  // reads "input contains NaN".
  StatusSlot statusSlot(std::string op, std::vector<std::string> arguments, std::vector<std::string> problems = {});
  // Keeps a buffer alive until the work recorded so far has run.
  const Buffer& keepAlive(Buffer buffer);
  // A temporary storage buffer that lives until the work recorded so far has run, from the
  // recorder's ScratchArena (no device allocation once the arena has grown to the workload);
  // `upload` also fills it from the host. Throws Unsupported naming `what` past one binding.
  const Buffer& scratch(std::size_t bytes, const char* what = "scratch memory");
  const Buffer& upload(const void* data, std::size_t bytes, const char* what = "an uploaded table");
  const ScratchArena& scratchArena() const noexcept { return m_scratch; }

  // Writes a GPU timestamp after all earlier work; returns its slot for elapsedNs().
  uint32_t timestamp();
  bool empty() const noexcept { return m_dispatches == 0 && m_timestamps.used() == 0; }
  // Dispatches recorded since the recorder was made (a decoded token's count, for tests and
  // benchmarks).
  uint64_t dispatchesRecorded() const noexcept { return m_dispatchesRecorded; }

  // Submits what was recorded, waits for it, reads the timestamps and starts recording afresh.
  // Throws InvalidArgument if a dispatch reported a NaN input.
  void submit();
  // Nanoseconds between two timestamps of the last submit.
  double elapsedNs(uint32_t from, uint32_t to) const;
  // Drops what was recorded without running it.
  void discard() noexcept;

  // A replayable recorder: ends the recording (nothing more can be recorded) ...
  void finishRecording();
  // ... then submits it, waits, and reports bad input as submit() does; the recording stays.
  void replay();

 private:
  void begin();

  const Device& m_device;
  std::optional<CommandContext> m_commands;  // none on a compile-only device
  DescriptorArena m_descriptors;
  TimestampPool m_timestamps;
  StatusBuffer m_status;
  std::vector<std::unique_ptr<Buffer>> m_transient;
  ScratchArena m_scratch;
  std::unique_ptr<DispatchTrace> m_trace;  // with VKATTN_DISPATCH_TRACE (dispatch_trace.hpp)
  uint32_t m_dispatches = 0;
  uint64_t m_dispatchesRecorded = 0;
  uint32_t m_partDispatches = 0;  // recorded since the last part was submitted
  uint32_t m_partSize;            // kPartDispatches or VKATTN_PART_DISPATCHES; 0: no parts
  bool m_recording = false;
  bool m_replayable = false;
  bool m_finished = false;      // a replayable recording ended
  bool m_hasRecording = false;  // ... and holds work
};

// Group counts for `items` work items of `perGroup` each, spread over x then y so that no
// dimension exceeds the device's limit. Shaders recover the flat index as
// gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x and skip indices past the end.
GroupCount groupsFor(const Device& device, uint64_t items, uint64_t perGroup = 1);

}  // namespace vkattn
