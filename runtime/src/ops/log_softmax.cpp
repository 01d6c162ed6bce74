#include <kernel_interface.h>
#include <log_softmax.h>

#include <cmath>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "op_row_definition.hpp"
#include "row_kernel.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn {

void logSoftmax(Context& ctx, const TensorView& x, const TensorView& y, const LogSoftmaxOptions& options) {
  using namespace detail;
  requireRowOpTensors(ctx, x, y, 8);
  if (!std::isfinite(options.scale) || options.scale <= 0.0f)
    throw InvalidArgument("scale", std::to_string(options.scale) + " must be finite and > 0");
  pc::LogSoftmaxParams p{};
  p.cols = checkedU32("x", x.dim(-1));
  p.rows = checkedU32("x", x.numel() / x.dim(-1));
  p.scale = options.scale;
  p.vec4Rows = p.cols % 4 == 0 ? 1 : 0;
  const RowLayout layout = chooseRowLayout(ctx, p.cols, 2);
  recordOp(ctx, {shaders::log_softmax.of(x.dtype), LOG_SOFTMAX_BINDING_COUNT, layout.constants()},
           {{LOG_SOFTMAX_BINDING_X, x.buffer}, {LOG_SOFTMAX_BINDING_Y, y.buffer}}, p, layout.groups(ctx, p.rows),
           {"logSoftmax", {"x"}, LOG_SOFTMAX_BINDING_STATUS, {"input contains NaN or +inf"}});
  ctx.flush();
}

Tensor logSoftmax(Context& ctx, const TensorView& x, const LogSoftmaxOptions& options) {
  return detail::allocatingLike(ctx, x, [&](const TensorView& y) { logSoftmax(ctx, x, y, options); });
}

namespace detail {

// f32: v - (max + log sum) loses |v|'s last bits (ulp 2^-19 near 16). f16: outputs rounded to half
// (ulp 2^-10 relative), up to |y| ~ 20 for a 32000-token row. Catalogued as a 1B-class model's
// log-probabilities: a prompt's 512 rows of 32000 logits.
VKATTN_OP_ROW(log_softmax) {
  return {.name = "log_softmax",
          .f32 = {1e-5, 1e-6},
          .f16 = {2e-3, 1e-3},
          .catalog =
              sameShapeCatalog("log_softmax", {512, 32000},
                               [](Context& ctx, const TensorView& x, const TensorView& y) { logSoftmax(ctx, x, y); })};
}

}  // namespace detail
}  // namespace vkattn
