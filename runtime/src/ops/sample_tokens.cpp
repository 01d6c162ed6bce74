#include <kernel_interface.h>
#include <push_constants.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "op_row_definition.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn {

static_assert(kSampleCandidates == SAMPLE_CANDIDATES);

void requireTokenDraw(const TokenDraw& draw) {
  if (!(draw.temperature >= 0.0f) || !std::isfinite(draw.temperature))
    throw InvalidArgument("temperature", std::to_string(draw.temperature) + " must be finite and >= 0");
  if (draw.topK < 0) throw InvalidArgument("topK", std::to_string(draw.topK) + " must be >= 0");
  if (!(draw.topP > 0.0f && draw.topP <= 1.0f))
    throw InvalidArgument("topP", std::to_string(draw.topP) + " must be in (0, 1]");
  if (!(draw.softcap >= 0.0f) || !std::isfinite(draw.softcap))
    throw InvalidArgument("softcap", std::to_string(draw.softcap) + " must be finite and >= 0");
}

void sampleTokens(Context& ctx, const TensorView& logits, const TensorView& uniforms, const TensorView& ids,
                  const TokenDraw& draw) {
  using namespace detail;
  requireTensor("logits", logits);
  requireTensor("uniforms", uniforms);
  requireTensor("ids", ids);
  requireDtype("logits", logits, {DType::F32});
  requireRank("logits", logits, 2, 2);
  requireContiguous("logits", logits);
  requireFitsDevice(ctx, "logits", logits);
  const int64_t rows = logits.dim(0);
  requireDtype("uniforms", uniforms, {DType::F32});
  requireContiguous("uniforms", uniforms);
  requireShape("uniforms", uniforms, {rows});
  requireFitsDevice(ctx, "uniforms", uniforms);
  requireDtype("ids", ids, {DType::I32});
  requireContiguous("ids", ids);
  requireShape("ids", ids, {rows});
  requireFitsDevice(ctx, "ids", ids);
  if (logits.dim(1) == 0) throw InvalidArgument("logits", "has no tokens to draw from");
  requireTokenDraw(draw);
  if (rows == 0) return;

  // A whole workgroup per row: 64 invocations on CPU drivers (8 subgroups of lavapipe's 8 lanes),
  // 256 on GPUs.
  const uint32_t workgroup =
      std::min(ctx.profile() == KernelProfile::CpuDriver ? 64u : 256u, ctx.info().maxWorkgroupInvocations);
  pc::SampleTokensParams p{};
  p.rows = checkedU32("logits", rows);
  p.cols = checkedU32("logits", logits.dim(1));
  p.topK = static_cast<uint32_t>(std::min<int64_t>(draw.topK, p.cols));
  p.temperature = draw.temperature;
  p.topP = draw.topP;
  p.softcap = draw.softcap;
  // The row is walked six times (largest value, four radix passes, the gather).
  requireLoopBudget(ctx, 6ull * ((p.cols + workgroup - 1) / workgroup),
                    "sampleTokens over " + std::to_string(p.cols) + " tokens");
  SpecConstants constants;
  constants.set(SPEC_WORKGROUP_SIZE, workgroup);
  recordOp(ctx, {shaders::sample_tokens, SAMPLE_BINDING_COUNT, constants},
           {{SAMPLE_BINDING_LOGITS, logits.buffer},
            {SAMPLE_BINDING_UNIFORMS, uniforms.buffer},
            {SAMPLE_BINDING_IDS, ids.buffer}},
           p, groupsFor(ctx.device(), static_cast<uint64_t>(rows), 1),
           {"sampleTokens", {"logits", "uniforms"}, SAMPLE_BINDING_STATUS, {"", "holds a value outside [0, 1)"}});
  ctx.flush();
}

namespace detail {

// Exact: the host sampler's token for the same uniform number (but within 2e-6 of a boundary).
VKATTN_OP_ROW(sample_tokens) {
  OpRow row{.name = "sample_tokens", .f32 = {0.0, 0.0}, .f16 = {0.0, 0.0}};
  // A 1B-class model's sampled token: top k 40 and top p 0.95 over one row of 32000 logits.
  row.catalog.push_back({"sample_tokens", [](Context& ctx) {
                           sampleTokens(ctx, ctx.tensor({1, 32000}), ctx.tensor({1}), ctx.tensor({1}, DType::I32),
                                        {.temperature = 0.8f, .topK = 40, .topP = 0.95f});
                         }});
  return row;
}

}  // namespace detail

}  // namespace vkattn
