#include <kernel_interface.h>
#include <push_constants.h>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn {

void copy(Context& ctx, const TensorView& x, const TensorView& y) {
  using namespace detail;
  requireTensor("x", x);
  requireTensor("y", y);
  requireContiguous("x", x);
  requireContiguous("y", y);
  requireFitsDevice(ctx, "x", x);
  requireFitsDevice(ctx, "y", y);
  const std::size_t bytes = x.spanBytes();
  if (y.spanBytes() != bytes) throw InvalidArgument("y", "size differs from x's");
  if (bytes % 16 != 0) throw InvalidArgument("x", "byte size must be a multiple of 16 (vec4 copy)");
  pc::CopyParams p{static_cast<uint32_t>(bytes / 16)};
  const uint32_t workgroup = 256;
  detail::recordOp(
      ctx, {detail::shaders::copy, COPY_BINDING_COUNT, SpecConstants().set(SPEC_WORKGROUP_SIZE, workgroup)},
      {{COPY_BINDING_X, x.buffer}, {COPY_BINDING_Y, y.buffer}}, p, groupsFor(ctx.device(), p.count, workgroup));
  ctx.flush();
}

}  // namespace vkattn
