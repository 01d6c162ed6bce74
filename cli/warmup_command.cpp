// vkattn warmup: creates, ahead of first use, the pipelines this device will need for the
// translation model (`vkattn translate`, the viewer's model source) and for the viewer's demo and
// .npy q/k maps, so that the driver's pipeline cache (persisted by the Device) holds them and the
// first real run skips kernel compilation. A progress bar on stderr; the cache file at the end.
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
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
  Context ctx({.device = options.device});
  std::unique_ptr<TranslationModel> model;
  const std::string sentence = "The agreement on the European Economic Area was signed in August 1992.";

  std::vector<WarmupStep> steps = {
      {"translation model: loading weights",
       [&](Context& c) { model = std::make_unique<TranslationModel>(c, modelDir); }},
      {"translation model: translate", [&](Context&) { model->translate(sentence); }},
      {"translation model: translate with attention maps",
       [&](Context&) {
         TranslateOptions o;
         o.attention = true;
         model->translate(sentence, o);
       }},
      {"attention weights: short maps (viewer demo)", [](Context& c) { attentionWeightsAt(c, 15, 14, 128, false); }},
      {"attention weights: short causal maps", [](Context& c) { attentionWeightsAt(c, 15, 15, 128, true); }},
      {"attention weights: long maps (viewer demo:N)",
       [](Context& c) { attentionWeightsAt(c, 1024, 1024, 128, false); }},
      {"attention weights: decode rows", [](Context& c) { attentionWeightsAt(c, 4, 64, 128, false); }},
  };
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    drawBar(i, steps.size(), steps[i].what, seconds);
    steps[i].run(ctx);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  drawBar(steps.size(), steps.size(), "done", seconds);
  std::fprintf(stderr, "\n");
  const std::filesystem::path cache = defaultPipelineCachePath(ctx.info());
  std::cout << ctx.pipelines().size() << " pipelines created on " << ctx.info().name << " in " << seconds << " s; "
            << (cache.empty() ? std::string("no pipeline cache file (set VKATTN_PIPELINE_CACHE or HOME)")
                              : "pipeline cache: " + cache.string())
            << "\n";
  return 0;
}

}  // namespace vkattn::cli
