#include <kernel_interface.h>
#include <push_constants.h>

#include <cmath>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "op_row_definition.hpp"
#include "row_kernel.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn {
namespace {

pc::NormParams checkNormArguments(Context& ctx, const TensorView& x, const TensorView& y, float eps) {
  using namespace detail;
  requireRowOpTensors(ctx, x, y, 8);
  requireNormEps("eps", eps);
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
  requireNormParameter(ctx, name, *v, x.dim(-1), "x", x);
  flag = 1;
  return v->buffer;
}

}  // namespace

void layerNorm(Context& ctx, const TensorView& x, const TensorView& y, const LayerNormOptions& options) {
  using namespace detail;
  pc::NormParams p = checkNormArguments(ctx, x, y, options.eps);
  const Buffer* weight = checkParameter(ctx, "weight", options.weight, x, p.hasWeight);
  const Buffer* bias = checkParameter(ctx, "bias", options.bias, x, p.hasBias);
  runRowKernel(ctx, "layer_norm", shaders::layer_norm, x.dtype, 3, LAYER_NORM_BINDING_COUNT,
               {{LAYER_NORM_BINDING_X, x.buffer},
                {LAYER_NORM_BINDING_Y, y.buffer},
                {LAYER_NORM_BINDING_WEIGHT, weight},
                {LAYER_NORM_BINDING_BIAS, bias}},
               p, {"x", "weight", "bias"}, LAYER_NORM_BINDING_STATUS);
}

Tensor layerNorm(Context& ctx, const TensorView& x, const LayerNormOptions& options) {
  return detail::allocatingLike(ctx, x, [&](const TensorView& y) { layerNorm(ctx, x, y, options); });
}

void rmsNorm(Context& ctx, const TensorView& x, const TensorView& y, const RmsNormOptions& options) {
  detail::rmsNormNaming(ctx, x, y, options, {"x", "weight", "residual"});
}

void detail::rmsNormNaming(Context& ctx, const TensorView& x, const TensorView& y, const RmsNormOptions& options,
                           std::vector<std::string> names) {
  using namespace detail;
  pc::NormParams p = checkNormArguments(ctx, x, y, options.eps);
  const Buffer* weight = checkParameter(ctx, "weight", options.weight, x, p.hasWeight);
  const Buffer* residual = x.buffer;
  if (const std::optional<TensorView>& r = options.residual) {
    requireTensor("residual", *r);
    requireContiguous("residual", *r);
    requireShape("residual", *r, x.shape);
    requireSameDtype("residual", *r, "x", x);
    requireFitsDevice(ctx, "residual", *r);
    residual = r->buffer;
    p.hasResidual = 1;
  }
  runRowKernel(ctx, "rms_norm", shaders::rms_norm, x.dtype, 2, RMS_NORM_BINDING_COUNT,
               {{RMS_NORM_BINDING_X, x.buffer},
                {RMS_NORM_BINDING_Y, y.buffer},
                {RMS_NORM_BINDING_WEIGHT, weight},
                {RMS_NORM_BINDING_RESIDUAL, residual}},
               p, std::move(names), RMS_NORM_BINDING_STATUS);
}

Tensor rmsNorm(Context& ctx, const TensorView& x, const RmsNormOptions& options) {
  return detail::allocatingLike(ctx, x, [&](const TensorView& y) { rmsNorm(ctx, x, y, options); });
}

namespace detail {

VKATTN_OP_ROW(layer_norm) {
  return {.name = "layer_norm",
          .f32 = {1e-5, 1e-5},
          .f16 = {2e-3, 2e-3},
          .catalog =
              sameShapeCatalog("layer_norm", {4096, 4096},
                               [](Context& ctx, const TensorView& x, const TensorView& y) { layerNorm(ctx, x, y); })};
}

VKATTN_OP_ROW(rms_norm) {
  return {
      .name = "rms_norm",
      .f32 = {1e-5, 1e-5},
      .f16 = {2e-3, 2e-3},
      .catalog = sameShapeCatalog("rms_norm", {4096, 4096},
                                  [](Context& ctx, const TensorView& x, const TensorView& y) { rmsNorm(ctx, x, y); })};
}

}  // namespace detail

}  // namespace vkattn
