// `vkattn devices --pipelines`: the driver's statistics (registers, spills, shared memory) of the
// attention kernels a GPU runs, one representative shape each, through
// VK_KHR_pipeline_executable_properties. A spill in one of them fails the command (exit 1), which
// tools/qualify_gpu.sh reports.
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn::cli {
namespace {

bool isSpill(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name.find("spill") != std::string::npos;
}

// Runs attention with `variant` on zeros of the given shape, or says why it does not run here.
void build(Context& ctx, AttentionVariant variant, int64_t heads, int64_t kvHeads, int64_t lq, int64_t lk) {
  try {
    Tensor q = ctx.tensor({1, heads, lq, 128}, std::vector<float>(heads * lq * 128), DType::F16);
    Tensor kv = ctx.tensor({1, kvHeads, lk, 128}, std::vector<float>(kvHeads * lk * 128), DType::F16);
    attention(ctx, q, kv, kv, {.variant = variant});
  } catch (const Unsupported& e) {
    std::cout << "  " << toString(variant) << ": not run here (" << e.what() << ")\n";
  }
}

}  // namespace

int pipelinesCommand(const CommonOptions& options) {
  setenv("VKATTN_PIPELINE_STATISTICS", "1", 1);
  Context ctx({.device = options.device, .profile = KernelProfile::Gpu});
  std::cout << "pipeline statistics on " << ctx.info().name << "\n";
  if (!ctx.device().capturesPipelineStatistics()) {
    std::cout << "  none: " << ctx.info().name
              << " does not offer VK_KHR_pipeline_executable_properties (pipelineExecutableInfo)\n";
    return 0;
  }
  // Prefill, f16, D = 128, on each GPU kernel; decode (Lq = 1, 32 query heads on 8 KV heads).
  for (AttentionVariant v : {AttentionVariant::Tiled, AttentionVariant::Coopmat, AttentionVariant::Coopmat2})
    build(ctx, v, 8, 8, 256, 256);
  build(ctx, AttentionVariant::Auto, 32, 8, 1, 4096);
  int spills = 0;
  for (const Pipeline* pipeline : ctx.pipelines().all()) {
    std::cout << "  " << pipeline->name() << "\n";
    for (const PipelineStatistic& s : pipelineStatistics(ctx.device(), *pipeline)) {
      const bool spill = isSpill(s.name) && s.value > 0;
      std::cout << "    " << s.executable << ": " << s.name << " = " << s.value << (spill ? "  SPILL" : "") << "\n";
      spills += spill;
    }
  }
  if (spills) std::cout << spills << " statistic(s) report spills: the kernels above need fewer registers here\n";
  return spills ? 1 : 0;
}

}  // namespace vkattn::cli
