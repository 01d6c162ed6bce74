// Runs a source's computations for the App. Headless runs compute in place, on the App's own
// context. The window computes on a worker thread with a context that shares the window's device
// (Context(SharedDevice): a recorder of its own, the one VkDevice and queue, submissions under the
// queue's lock), while the UI keeps drawing and shows what the worker is doing; the maps it makes
// live on the device the window draws with.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "sources/attention_source.hpp"
#include "vkattn/core/context.hpp"

namespace vkattn::viewer {

// One computation's outcome: the maps, or the error that stopped it. An error in the user's input
// (which the command line reports with exit status 2) names the argument apart from the problem,
// so that it is reported with one prefix however many hands it passes through.
struct SourceResult {
  std::optional<AttentionSet> set;
  std::string error;     // InvalidArgument's problem, else the whole message
  std::string argument;  // the argument at fault; empty when the input was not
  std::string sentence;  // what was computed

  std::string message() const;  // the error as InvalidArgument (or the source) words it
};

// What the source runner is doing while it computes, for the progress line: it says that
// kernels compile only when this device has no pipeline cache yet and nothing has run.
std::string computingStage(const std::string& device, bool pipelineCacheLoaded, bool computedBefore);

class SourceRunner {
 public:
  virtual ~SourceRunner() = default;
  // Asks for the maps of `sentence`; a newer request replaces one not yet started.
  virtual void request(const std::string& sentence) = 0;
  // The finished result, once.
  virtual std::optional<SourceResult> poll() = 0;
  // True while a request is pending or running.
  virtual bool working() const = 0;
  // What the source is doing now and for how long, for the progress line.
  virtual std::string progress() const = 0;
  virtual double secondsWorking() const = 0;
  // The source's name and whether it reads the sentence (known once the source is made).
  virtual std::string name() const = 0;
  virtual bool usesSentence() const = 0;
  // Ends the work (waiting for a computation in flight) and closes what the runner opened.
  virtual void stop() {}
};

// In place: request() computes before it returns. Errors making the source throw from the
// constructor (exit status 2 for bad input, as before).
class InlineSourceRunner : public SourceRunner {
 public:
  InlineSourceRunner(Context& ctx, const SourceOptions& options);
  void request(const std::string& sentence) override;
  std::optional<SourceResult> poll() override;
  bool working() const override { return false; }
  std::string progress() const override { return {}; }
  double secondsWorking() const override { return 0.0; }
  std::string name() const override { return m_source->name(); }
  bool usesSentence() const override { return m_source->usesSentence(); }

 private:
  std::unique_ptr<AttentionSource> m_source;
  std::optional<SourceResult> m_result;
};

// On a worker thread whose context shares `device`'s (which must outlive the runner).
class ThreadedSourceRunner : public SourceRunner {
 public:
  ThreadedSourceRunner(const Context& device, SourceOptions options);
  ~ThreadedSourceRunner() override;
  ThreadedSourceRunner(const ThreadedSourceRunner&) = delete;
  ThreadedSourceRunner& operator=(const ThreadedSourceRunner&) = delete;

  void request(const std::string& sentence) override;
  std::optional<SourceResult> poll() override;
  bool working() const override;
  std::string progress() const override;
  double secondsWorking() const override;
  std::string name() const override;
  bool usesSentence() const override;
  void stop() override;

 private:
  void run(const Context& device, SourceOptions options);
  void setStage(std::string stage);

  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  std::optional<std::string> m_pending;  // the next sentence to compute
  std::optional<SourceResult> m_done;
  bool m_busy = true;  // making the context and the source counts as work
  bool m_stop = false;
  std::string m_stage = "starting";
  std::chrono::steady_clock::time_point m_since = std::chrono::steady_clock::now();
  std::string m_name;
  bool m_usesSentence = false;
  std::thread m_thread;  // last: started once everything above exists
};

}  // namespace vkattn::viewer
