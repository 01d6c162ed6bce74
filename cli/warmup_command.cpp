// vkattn warmup: creates, ahead of first use, the pipelines this device will need for the
// translation model (`vkattn translate`, the viewer's model source) and for the viewer's demo and
// .npy q/k maps, so that the driver's pipeline cache (persisted by the Device) holds them and the
// first real run skips kernel compilation. A progress bar on stderr; the cache file at the end.
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "arguments.hpp"
#include "commands.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/device.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/models/model_directory.hpp"
#include "vkattn/models/translation_model.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn::cli {
namespace {

struct WarmupStep {
  std::string what;
  std::function<void(Context&)> run;
};

// Steps run in order on one Context; `finish` frees what they kept on it, before it closes.
struct WarmupLane {
  std::vector<WarmupStep> steps;
  std::function<void()> finish;
};

// Attention probabilities for `queries` x `keys` at head dimension `dim`: the viewer's demo (128)
// and q/k dumps; the kernel variant follows the query count, so both a short and a long map run.
void attentionWeightsAt(Context& ctx, int64_t queries, int64_t keys, int64_t dim, bool causal) {
  std::vector<float> q(static_cast<std::size_t>(queries * dim), 0.01f), k(static_cast<std::size_t>(keys * dim), 0.02f);
  Tensor qt = ctx.tensor({1, 1, queries, dim}, q), kt = ctx.tensor({1, 1, keys, dim}, k);
  AttentionOptions options;
  options.causal = causal;
  attentionWeights(ctx, qt, kt, {0}, options).download();
}

void drawBar(std::size_t done, std::size_t total, const std::string& what, double seconds) {
  constexpr int kWidth = 28;
  const int filled = static_cast<int>(kWidth * done / total);
  std::fprintf(stderr, "\r[%s%s] %zu/%zu %-52.52s %6.1f s", std::string(static_cast<std::size_t>(filled), '#').c_str(),
               std::string(static_cast<std::size_t>(kWidth - filled), '-').c_str(), done, total, what.c_str(), seconds);
  std::fflush(stderr);
}

}  // namespace

int warmupCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  Arguments a(args, {"--model"}, {});
  if (!a.positional().empty()) throw InvalidArgument(a.positional().front(), "warmup takes no sentence or file");
  const std::filesystem::path modelDir = a.get("--model").value_or(defaultModelDirectory().string());
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<TranslationModel> model;
  const std::string sentence = "The agreement on the European Economic Area was signed in August 1992.";

  // Two lanes of steps that share no kernels' state, each on a thread with a Context of its own,
  // so that their kernels compile in parallel (the drivers' caches are process-wide and each
  // Context merges its pipeline cache into the file as it closes).
  const std::vector<WarmupLane> lanes = {
      {{
           {"translation model: loading weights",
            [&](Context& c) { model = std::make_unique<TranslationModel>(c, modelDir); }},
           {"translation model: translate", [&](Context&) { model->translate(sentence); }},
           {"translation model: translate with attention maps",
            [&](Context&) {
              TranslateOptions o;
              o.attention = true;
              model->translate(sentence, o);
            }},
       },
       [&] { model.reset(); }},
      {{
           {"attention weights: short maps (viewer demo)",
            [](Context& c) { attentionWeightsAt(c, 15, 14, 128, false); }},
           {"attention weights: short causal maps", [](Context& c) { attentionWeightsAt(c, 15, 15, 128, true); }},
           {"attention weights: long maps (viewer demo:N)",
            [](Context& c) { attentionWeightsAt(c, 1024, 1024, 128, false); }},
           {"attention weights: decode rows", [](Context& c) { attentionWeightsAt(c, 4, 64, 128, false); }},
       },
       nullptr},
  };
  std::size_t total = 0;
  for (const auto& lane : lanes) total += lane.steps.size();

  std::mutex mutex;  // guards everything below, and the bar
  std::size_t done = 0, pipelines = 0;
  std::string deviceName;
  std::filesystem::path cache;
  std::exception_ptr failure;
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  auto runLane = [&](const WarmupLane& lane) {
    try {
      Context ctx({.device = options.device});
      struct Finish {
        const std::function<void()>& finish;
        ~Finish() {
          if (finish) finish();
        }
      } finishFirst{lane.finish};  // before ctx closes, even when a step throws
      for (const WarmupStep& step : lane.steps) {
        {
          std::lock_guard lock(mutex);
          if (failure) return;
          drawBar(done, total, step.what, elapsed());
        }
        step.run(ctx);
        std::lock_guard lock(mutex);
        ++done;
      }
      std::lock_guard lock(mutex);
      pipelines += ctx.pipelines().size();
      deviceName = ctx.info().name;
      cache = defaultPipelineCachePath(ctx.info());
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 1; i < lanes.size(); ++i) threads.emplace_back(runLane, std::cref(lanes[i]));
    runLane(lanes.front());
  }
  std::fprintf(stderr, "\n");
  if (failure) std::rethrow_exception(failure);
  const double seconds = elapsed();
  drawBar(total, total, "done", seconds);
  std::fprintf(stderr, "\n");
  std::cout << pipelines << " pipelines created on " << deviceName << " in " << seconds << " s; "
            << (cache.empty() ? std::string("no pipeline cache file (set VKATTN_PIPELINE_CACHE or HOME)")
                              : "pipeline cache: " + cache.string())
            << "\n";
  return 0;
}

}  // namespace vkattn::cli
