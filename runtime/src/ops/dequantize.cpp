// dequantize(): checks, then one dispatch of the format's module (dequantize.comp).
#include <dequantize.h>
#include <kernel_interface.h>

#include "checks.hpp"
#include "op_dispatch.hpp"
#include "op_row_definition.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/linear.hpp"

namespace vkattn {
namespace {

constexpr uint32_t kDequantizeWorkgroup = 256;

void checkWeight(const TensorView& weight) {
  using namespace detail;
  requireTensor("weight", weight);
  requireDtype("weight", weight, {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K});
  requireRank("weight", weight, 2, 2);
}

}  // namespace

void dequantize(Context& ctx, const TensorView& weight, const TensorView& out) {
  using namespace detail;
  checkWeight(weight);
  const BlockRows rows = requireBlockRows(ctx, "weight", weight);
  requireTensor("out", out);
  requireDtype("out", out, {DType::F32, DType::F16});
  requireDtypeSupported(ctx, "out", out);
  requireShape("out", out, weight.shape);
  requireContiguous("out", out);
  requireFitsDevice(ctx, "out", out);
  if (out.buffer == weight.buffer) throw InvalidArgument("out", "shares a buffer with weight");
  pc::DequantizeParams p{};
  p.rows = checkedU32("weight", weight.dim(0));
  p.cols = checkedU32("weight", weight.dim(1));
  checkedU32("weight", weight.numel());  // one invocation per element, numbered in 32 bits
  p.firstByte = rows.firstByte;
  p.rowBytes = rows.rowBytes;
  p.outOffset = checkedU32("out", out.offset);
  SpecConstants constants;
  constants.set(SPEC_WORKGROUP_SIZE, kDequantizeWorkgroup);
  recordOp(ctx, {shaders::dequantize_by_format.find(weight.dtype)->of(out.dtype), DEQUANTIZE_BINDING_COUNT, constants},
           {{DEQUANTIZE_BINDING_WEIGHT, weight.buffer}, {DEQUANTIZE_BINDING_OUT, out.buffer}}, p,
           groupsFor(ctx.device(), static_cast<uint64_t>(weight.numel()), kDequantizeWorkgroup),
           {"dequantize", {"weight"}, DEQUANTIZE_BINDING_STATUS});
  ctx.flush();
}

Tensor dequantize(Context& ctx, const TensorView& weight, DType out) {
  checkWeight(weight);
  if (out != DType::F32 && out != DType::F16)
    throw InvalidArgument("out", std::string("dtype ") + toString(out) + ": weights decode to f32 or f16");
  Tensor y = ctx.tensor(weight.shape, out);
  dequantize(ctx, weight, y);
  return y;
}

namespace detail {

// f32: exactly the host's decoding (the same arithmetic in the same order); f16: that, rounded to
// half by the device's conversion (to nearest even or toward zero: 2^-10 relative, subnormals
// 2^-24 apart). Catalogued at a 4096 x 4096 projection's weight, each format to f32 and f16 rows.
VKATTN_OP_ROW(dequantize) {
  OpRow row{.name = "dequantize", .f32 = {0.0, 0.0}, .f16 = {6e-8, 1e-3}};
  for (DType format : {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q5_K, DType::Q6_K})
    for (DType out : {DType::F32, DType::F16})
      row.catalog.push_back(
          {std::string("dequantize ") + toString(format) + " to " + toString(out), [format, out](Context& ctx) {
             const Tensor w = ctx.tensor({4096, 4096}, format), y = ctx.tensor({4096, 4096}, out);
             dequantize(ctx, w, y);
           }});
  return row;
}

}  // namespace detail
}  // namespace vkattn
