#include <kernel_interface.h>
#include <push_constants.h>

#include <cmath>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "row_kernel.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn {
namespace {

pc::NormParams checkNormArguments(Context& ctx, const TensorView& x, const TensorView& y, float eps) {
  using namespace detail;
  requireTensor("x", x);
  requireTensor("y", y);
  requireDtype("x", x, {DType::F32, DType::F16});
  requireRank("x", x, 1, 8);
  requireContiguous("x", x);
  requireContiguous("y", y);
  requireShape("y", y, x.shape);
  requireSameDtype("y", y, "x", x);
  requireDtypeSupported(ctx, "x", x);
  requireFitsDevice(ctx, "x", x);
  requireFitsDevice(ctx, "y", y);
  if (!(eps >= 0.0f) || !std::isfinite(eps)) throw InvalidArgument("eps", "must be a finite value >= 0");
  pc::NormParams p{};
  p.cols = static_cast<uint32_t>(x.dim(-1));
  p.rows = static_cast<uint32_t>(x.numel() / x.dim(-1));
  p.eps = eps;
  p.vec4Rows = p.cols % 4 == 0 ? 1 : 0;
  return p;
}

const Buffer* checkParameter(Context& ctx, const std::string& name, const std::optional<TensorView>& v,
                             const TensorView& x, uint32_t& flag) {
  using namespace detail;
  if (!v) return x.buffer;
  requireTensor(name, *v);
  requireContiguous(name, *v);
  requireShape(name, *v, {x.dim(-1)});
  requireSameDtype(name, *v, "x", x);
  requireFitsDevice(ctx, name, *v);
  flag = 1;
  return v->buffer;
}

}  // namespace

void layerNorm(Context& ctx, const TensorView& x, const TensorView& y, const LayerNormOptions& options) {
  using namespace detail;
  pc::NormParams p = checkNormArguments(ctx, x, y, options.eps);
  const Buffer* weight = checkParameter(ctx, "weight", options.weight, x, p.hasWeight);
  const Buffer* bias = checkParameter(ctx, "bias", options.bias, x, p.hasBias);
  const RowLayout layout = chooseRowLayout(ctx, p.cols, 3);
  recordOp(ctx, {variantName("layer_norm", x.dtype), LAYER_NORM_BINDING_COUNT, layout.constants()},
           {{LAYER_NORM_BINDING_X, x.buffer},
            {LAYER_NORM_BINDING_Y, y.buffer},
            {LAYER_NORM_BINDING_WEIGHT, weight},
            {LAYER_NORM_BINDING_BIAS, bias}},
           p, layout.groups(ctx, p.rows), {"layer_norm", {"x", "weight", "bias"}, LAYER_NORM_BINDING_STATUS});
  ctx.flush();
}

Tensor layerNorm(Context& ctx, const TensorView& x, const LayerNormOptions& options) {
  detail::requireTensor("x", x);
  return detail::allocatingCall(ctx, x.shape, x.dtype, [&](const TensorView& y) { layerNorm(ctx, x, y, options); });
}

void rmsNorm(Context& ctx, const TensorView& x, const TensorView& y, const RmsNormOptions& options) {
  using namespace detail;
  pc::NormParams p = checkNormArguments(ctx, x, y, options.eps);
  const Buffer* weight = checkParameter(ctx, "weight", options.weight, x, p.hasWeight);
  const RowLayout layout = chooseRowLayout(ctx, p.cols, 2);
  recordOp(ctx, {variantName("rms_norm", x.dtype), RMS_NORM_BINDING_COUNT, layout.constants()},
           {{RMS_NORM_BINDING_X, x.buffer}, {RMS_NORM_BINDING_Y, y.buffer}, {RMS_NORM_BINDING_WEIGHT, weight}}, p,
           layout.groups(ctx, p.rows), {"rms_norm", {"x", "weight"}, RMS_NORM_BINDING_STATUS});
  ctx.flush();
}

Tensor rmsNorm(Context& ctx, const TensorView& x, const RmsNormOptions& options) {
  detail::requireTensor("x", x);
  return detail::allocatingCall(ctx, x.shape, x.dtype, [&](const TensorView& y) { rmsNorm(ctx, x, y, options); });
}

}  // namespace vkattn
