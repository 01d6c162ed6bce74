#include "vkattn/core/replay.hpp"

#include <utility>

#include "vkattn/core/context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/recorder.hpp"

namespace vkattn {

Replay::Replay(Context& ctx) : m_ctx(ctx), m_recorder(std::make_unique<Recorder>(ctx.device(), true)) {}

Replay::~Replay() = default;

void Replay::record(const std::function<void()>& ops) {
  if (m_recorded) throw Error("Replay::record: this replay holds a recording already");
  if (m_ctx.batching()) throw Error("Replay::record: a Batch of the context is open; record outside it");
  // The context records into the replay's recorder, as inside a Batch (nothing is submitted),
  // until `ops` returns or throws.
  struct Swap {
    Context& ctx;
    std::unique_ptr<Recorder>& replay;
    Swap(Context& c, std::unique_ptr<Recorder>& r) : ctx(c), replay(r) {
      std::swap(ctx.m_recorder, replay);
      ++ctx.m_batchDepth;
    }
    ~Swap() {
      --ctx.m_batchDepth;
      std::swap(ctx.m_recorder, replay);
    }
  };
  try {
    Swap swap(m_ctx, m_recorder);
    ops();
  } catch (...) {
    m_recorder->discard();
    throw;
  }
  m_recorder->finishRecording();
  m_recorded = true;
}

void Replay::submit() {
  if (!m_recorded) throw Error("Replay::submit: nothing has been recorded");
  m_recorder->replay();
}

uint64_t Replay::dispatches() const noexcept {
  return m_recorder->dispatchesRecorded();
}

}  // namespace vkattn
