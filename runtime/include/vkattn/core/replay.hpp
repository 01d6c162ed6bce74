// Replay: work recorded once and submitted many times, so that a repeated step (a decoded token's
// dispatches) costs the host one submission instead of recording it again. What changes from one
// submission to the next lives in device memory the kernels read, and the host writes it between
// submissions (Tensor::upload, uploadInt): the token, its position, the cache's length
// (AttentionOptions::keyLengths, RopeOptions::positions), a draw's uniform number. Ops issued
// inside record() go into the replay instead of the context's recorder; their temporaries,
// descriptor sets and bad-input slots live as long as the replay. The tensors they were given must
// outlive it. A replay takes no timestamps.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace vkattn {

class Context;
class Recorder;

class Replay {
 public:
  explicit Replay(Context& ctx);
  ~Replay();
  Replay(const Replay&) = delete;
  Replay& operator=(const Replay&) = delete;

  // Records the ops `ops` issues on the context (nothing runs); once per replay. An exception from
  // `ops` leaves the replay empty and the context as it was.
  void record(const std::function<void()>& ops);
  // Runs the recording and waits for it; bad input a kernel reports throws InvalidArgument naming
  // it, as the op would have, and the replay stays usable.
  void submit();
  bool recorded() const noexcept { return m_recorded; }
  // Dispatches in the recording.
  uint64_t dispatches() const noexcept;

 private:
  Context& m_ctx;
  std::unique_ptr<Recorder> m_recorder;
  bool m_recorded = false;
};

}  // namespace vkattn
