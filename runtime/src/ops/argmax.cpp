#include <kernel_interface.h>
#include <push_constants.h>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "op_row_definition.hpp"
#include "row_kernel.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn {
namespace {

// x's shape without its last dim ([1] for a 1-d x).
Shape idsShape(const TensorView& x) {
  Shape s(x.shape.begin(), x.shape.end() - 1);
  if (s.empty()) s.push_back(1);
  return s;
}

}  // namespace

void argmax(Context& ctx, const TensorView& x, const TensorView& ids) {
  using namespace detail;
  requireTensor("x", x);
  requireTensor("ids", ids);
  requireDtype("x", x, {DType::F32, DType::F16});
  requireRank("x", x, 1, 8);
  requireContiguous("x", x);
  requireDtypeSupported(ctx, "x", x);
  requireFitsDevice(ctx, "x", x);
  requireDtype("ids", ids, {DType::I32});
  requireContiguous("ids", ids);
  requireShape("ids", ids, idsShape(x));
  requireFitsDevice(ctx, "ids", ids);
  if (x.dim(-1) == 0) throw InvalidArgument("x", "has no columns to take the largest of");
  pc::ArgmaxParams p{};
  p.cols = checkedU32("x", x.dim(-1));
  p.rows = checkedU32("x", x.numel() / x.dim(-1));
  runRowKernel(ctx, "argmax", shaders::argmax, x.dtype, 1, ARGMAX_BINDING_COUNT,
               {{ARGMAX_BINDING_X, x.buffer}, {ARGMAX_BINDING_IDS, ids.buffer}}, p, {"x"}, ARGMAX_BINDING_STATUS);
}

Tensor argmax(Context& ctx, const TensorView& x) {
  detail::requireTensor("x", x);
  detail::requireRank("x", x, 1, 8);
  Tensor ids = ctx.tensor(idsShape(x), DType::I32);
  argmax(ctx, x, ids);
  return ids;
}

namespace detail {

// Exact: the ids equal the reference's (the lowest column among equal largest values).
VKATTN_OP_ROW(argmax) {
  OpRow row{.name = "argmax", .f32 = {0.0, 0.0}, .f16 = {0.0, 0.0}};
  // A 1B-class model's greedy token: the argmax of one row of 32000 logits.
  for (DType dtype : {DType::F32, DType::F16})
    row.catalog.push_back({std::string("argmax ") + toString(dtype), [dtype](Context& ctx) {
                             argmax(ctx, ctx.tensor({1, 32000}, dtype), ctx.tensor({1}, DType::I32));
                           }});
  return row;
}

}  // namespace detail

}  // namespace vkattn
