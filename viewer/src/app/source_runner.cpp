#include "app/source_runner.hpp"

#include <functional>
#include <utility>

#include "vkattn/core/error.hpp"

namespace vkattn::viewer {
namespace {

// The error of `e` as a result: InvalidArgument split into argument and problem.
SourceResult failed(const std::exception& e) {
  SourceResult result;
  if (const auto* invalid = dynamic_cast<const InvalidArgument*>(&e)) {
    result.error = invalid->problem();
    result.argument = invalid->argument();
  } else {
    result.error = e.what();
  }
  return result;
}

SourceResult computeOnce(AttentionSource& source, const std::string& sentence) {
  SourceResult result;
  try {
    result.set = source.compute(sentence);
    if (result.set->kinds.empty()) {
      result.set.reset();
      result.error = source.name() + " produced no attention maps";
    }
  } catch (const std::exception& e) {
    result = failed(e);
  }
  result.sentence = sentence;
  return result;
}

}  // namespace

std::string SourceResult::message() const {
  return argument.empty() ? error : InvalidArgument(argument, error).what();
}

std::string computingStage(const std::string& device, bool pipelineCacheLoaded, bool computedBefore) {
  if (computedBefore) return "computing attention on " + device;
  if (pipelineCacheLoaded) return "computing attention on " + device + " (kernels from the pipeline cache)";
  return "computing attention on " + device +
         " and compiling its kernels: the first run on this device (`vkattn warmup` compiles them ahead of time)";
}

InlineSourceRunner::InlineSourceRunner(Context& ctx, const SourceOptions& options)
    : m_source(makeSource(ctx, options)) {}

void InlineSourceRunner::request(const std::string& sentence) {
  m_result = computeOnce(*m_source, sentence);
}

std::optional<SourceResult> InlineSourceRunner::poll() {
  return std::exchange(m_result, std::nullopt);
}

ThreadedSourceRunner::ThreadedSourceRunner(const Context& device, SourceOptions options)
    : m_name(options.spec), m_thread(&ThreadedSourceRunner::run, this, std::cref(device), std::move(options)) {}

ThreadedSourceRunner::~ThreadedSourceRunner() {
  stop();
}

void ThreadedSourceRunner::stop() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  // A computation in flight finishes first: Vulkan work cannot be abandoned half way.
  if (m_thread.joinable()) m_thread.join();
}

void ThreadedSourceRunner::request(const std::string& sentence) {
  {
    std::lock_guard lock(m_mutex);
    m_pending = sentence;
    if (!m_busy) m_since = std::chrono::steady_clock::now();
    m_busy = true;
  }
  m_wake.notify_all();
}

std::optional<SourceResult> ThreadedSourceRunner::poll() {
  std::lock_guard lock(m_mutex);
  return std::exchange(m_done, std::nullopt);
}

bool ThreadedSourceRunner::working() const {
  std::lock_guard lock(m_mutex);
  return m_busy;
}

std::string ThreadedSourceRunner::progress() const {
  std::lock_guard lock(m_mutex);
  return m_stage;
}

double ThreadedSourceRunner::secondsWorking() const {
  std::lock_guard lock(m_mutex);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_since).count();
}

std::string ThreadedSourceRunner::name() const {
  std::lock_guard lock(m_mutex);
  return m_name;
}

bool ThreadedSourceRunner::usesSentence() const {
  std::lock_guard lock(m_mutex);
  return m_usesSentence;
}

void ThreadedSourceRunner::setStage(std::string stage) {
  std::lock_guard lock(m_mutex);
  m_stage = std::move(stage);
}

void ThreadedSourceRunner::run(const Context& device, SourceOptions options) {
  std::unique_ptr<Context> ctx;
  std::unique_ptr<AttentionSource> source;
  try {
    ctx = std::make_unique<Context>(SharedDevice{device});
    setStage("loading " + options.spec);
    source = makeSource(*ctx, options);
    std::lock_guard lock(m_mutex);
    m_name = source->name();
    m_usesSentence = source->usesSentence();
  } catch (const std::exception& e) {
    std::lock_guard lock(m_mutex);
    m_done = failed(e);
    m_busy = false;
    m_stage.clear();
    return;
  }
  bool computedBefore = false;
  for (;;) {
    std::string sentence;
    {
      std::unique_lock lock(m_mutex);
      m_wake.wait(lock, [&] { return m_stop || m_pending.has_value(); });
      if (m_stop) return;
      sentence = std::move(*m_pending);
      m_pending.reset();
      m_stage = computingStage(ctx->info().name, ctx->device().pipelineCacheLoaded(), computedBefore);
    }
    // A source that grows its maps publishes each intermediate set; the UI takes the newest.
    source->onProgress([this, sentence](AttentionSet set) {
      SourceResult partial;
      partial.set = std::move(set);
      partial.sentence = sentence;
      std::lock_guard lock(m_mutex);
      m_done = std::move(partial);
    });
    SourceResult result = computeOnce(*source, sentence);
    computedBefore = true;
    std::lock_guard lock(m_mutex);
    m_done = std::move(result);
    m_busy = m_pending.has_value();
    m_stage = m_busy ? m_stage : std::string();
  }
}

}  // namespace vkattn::viewer
