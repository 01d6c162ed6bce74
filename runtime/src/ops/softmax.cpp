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

// Mask strides over x's leading dims (viewed as [d0, d1, d2]) in units of mask rows.
void maskStrides(const TensorView& x, const TensorView& mask, pc::SoftmaxParams& p) {
  const int64_t xRank = x.rank();
  if (mask.rank() > xRank) throw InvalidArgument("mask", "rank " + std::to_string(mask.rank()) + " exceeds x's rank");
  if (mask.dim(-1) != x.dim(-1))
    throw InvalidArgument(
        "mask", "last dim " + std::to_string(mask.dim(-1)) + " differs from x's " + std::to_string(x.dim(-1)));
  // Leading dims of x padded on the left to 3, mask dims aligned to x's from the right.
  int64_t xDims[3] = {1, 1, 1}, mDims[3] = {1, 1, 1};
  for (int64_t i = 0; i < xRank - 1; ++i) xDims[3 - (xRank - 1) + i] = x.shape[i];
  const int64_t mRank = mask.rank();
  for (int64_t i = 0; i < mRank - 1; ++i) mDims[3 - (mRank - 1) + i] = mask.shape[i];
  for (int i = 0; i < 3; ++i)
    if (mDims[i] != 1 && mDims[i] != xDims[i])
      throw InvalidArgument("mask",
                            "shape " + toString(mask.shape) + " does not broadcast to x's " + toString(x.shape));
  uint32_t stride = 1;
  uint32_t strides[3];
  for (int i = 2; i >= 0; --i) {
    strides[i] = mDims[i] == 1 ? 0 : stride;
    stride *= static_cast<uint32_t>(mDims[i]);
  }
  p.dim1 = static_cast<uint32_t>(xDims[1]);
  p.dim2 = static_cast<uint32_t>(xDims[2]);
  p.maskStride0 = strides[0];
  p.maskStride1 = strides[1];
  p.maskStride2 = strides[2];
}

}  // namespace

void softmax(Context& ctx, const TensorView& x, const TensorView& y, const SoftmaxOptions& options) {
  using namespace detail;
  requireRowOpTensors(ctx, x, y, 4);
  if (!std::isfinite(options.scale)) throw InvalidArgument("scale", "must be finite");

  pc::SoftmaxParams p{};
  p.cols = static_cast<uint32_t>(x.dim(-1));
  p.rows = static_cast<uint32_t>(x.numel() / x.dim(-1));
  p.dim1 = p.dim2 = 1;
  p.scale = options.scale;
  p.vec4Rows = p.cols % 4 == 0 ? 1 : 0;
  const Buffer* maskBuffer = x.buffer;
  if (options.mask) {
    const TensorView& m = *options.mask;
    requireTensor("mask", m);
    requireDtype("mask", m, {DType::F32});
    requireContiguous("mask", m);
    requireFitsDevice(ctx, "mask", m);
    maskStrides(x, m, p);
    p.hasMask = 1;
    maskBuffer = m.buffer;
  } else {
    int64_t d[3] = {1, 1, 1};
    for (int64_t i = 0; i < x.rank() - 1; ++i) d[3 - (x.rank() - 1) + i] = x.shape[i];
    p.dim1 = static_cast<uint32_t>(d[1]);
    p.dim2 = static_cast<uint32_t>(d[2]);
  }

  runRowKernel(ctx, "softmax", shaders::softmax, x.dtype, 2, SOFTMAX_BINDING_COUNT,
               {{SOFTMAX_BINDING_X, x.buffer}, {SOFTMAX_BINDING_Y, y.buffer}, {SOFTMAX_BINDING_MASK, maskBuffer}}, p,
               {"x", "mask"}, SOFTMAX_BINDING_STATUS);
}

Tensor softmax(Context& ctx, const TensorView& x, const SoftmaxOptions& options) {
  return detail::allocatingLike(ctx, x, [&](const TensorView& y) { softmax(ctx, x, y, options); });
}

namespace detail {

// f16: outputs in [0, 1] rounded to half (ulp 2^-11 near 1), absolute only.
VKATTN_OP_ROW(softmax) {
  return {
      .name = "softmax",
      .f32 = {2e-6, 1e-5},
      .f16 = {1e-3, 0.0},
      .catalog = sameShapeCatalog("softmax", {4096, 4096},
                                  [](Context& ctx, const TensorView& x, const TensorView& y) { softmax(ctx, x, y); })};
}

}  // namespace detail

}  // namespace vkattn
