// Dense layers and matrix products, fp32 accumulation over f32 or f16 storage (all operands of
// one call share the dtype):
//   linear: y[..., N] = act(x[..., K] W^T + b) + residual with W [N, K] (torch.nn.Linear layout);
//   matmul: C[M, N] = alpha A[M, K] B, B [K, N] or [N, K] with transposeB, optionally batched.
// Kernel families: Rows (register-blocked, vec4 loads, no shared memory or barriers: CPU drivers),
// Tiled (64 x 64 shared-memory tiles, 4 x 4 outputs per invocation: GPUs) and Naive (one output
// per invocation: the benchmarks' baseline). Coopmat runs f16 operands on tensor cores through
// VK_NV_cooperative_matrix (up to 128 x 128 tiles of 16 x 16 x 16 fp16 fragment products, fp32
// accumulation) where DeviceInfo::cooperativeMatrixF16 holds; asked for on another device it
// throws Unsupported. CoopmatEmulated runs the same kernel with the fragments emulated in plain
// GLSL (f32 or f16, devices with a fixed subgroup size of 8 such as lavapipe) so that CI executes
// it; it is slow and never picked automatically. Auto picks Rows or Tiled by ctx.profile(), and
// Coopmat for f16 operands on GPUs with matrix units (DeviceInfo::cooperativeMatrixF16), overridden by
// VKATTN_MATMUL_VARIANT=rows|tiled|naive|coopmat|coopmat-emulated|coopmat2-wg.
// linear() also takes weights in ggml's block formats (Q8_0, Q4_0, Q4_K, Q5_K, Q6_K; x, y, bias
// and residual f32 or f16): they stay in their blocks in device memory and are decoded as they
// load, by a matrix-vector kernel (decode) or a shared-memory tiled kernel (prompts), chosen by
// WeightKernel (vkattn/ops/matmul_variant.hpp); `variant` applies to float weights only. f16
// weights under f32 x take the same kernels (read as f16, half the bytes of f32 weights; K a
// multiple of 32); f16 weights under f16 x take the float kernels.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"
#include "vkattn/ops/activation.hpp"
#include "vkattn/ops/linear_steps.hpp"
#include "vkattn/ops/matmul_variant.hpp"

namespace vkattn {

// x normalized by RMSNorm before the product: x / sqrt(mean(x^2) + eps) * weight, row by row (a
// decoder's pre-norm, as rmsNorm() computes it).
struct InputRmsNorm {
  TensorView weight;  // [K], contiguous, x's dtype
  float eps = 1e-6f;  // finite, >= 0
};

struct LinearOptions {
  std::optional<TensorView> bias;  // [N], contiguous
  Activation activation = Activation::None;
  // Added after the activation; y's shape, its rows may be strided like y's. May be y itself
  // (y += act(x W^T + b)).
  std::optional<TensorView> residual;
  MatmulVariant variant = MatmulVariant::Auto;
  WeightKernel weightKernel = WeightKernel::Auto;  // block-format weights, and f16 weights under f32 x
  // Where normalizesInProduct() holds, the matrix-vector kernel normalizes x as it reads it (one
  // dispatch, no normalized copy); elsewhere rmsNorm() writes a normalized copy of x first, which
  // needs x contiguous from its buffer's start.
  std::optional<InputRmsNorm> inputNorm;
  // At most one step after the product; postNorm excludes residual (it brings its own).
  std::optional<RopeAppendStep> ropeAppend;
  std::optional<PostNormStep> postNorm;
};

// x: [..., K] with a contiguous last dim whose leading dims flatten to M rows of one stride (any
// contiguous tensor, or a slice of rows). weight: [N, K], rows of one stride, last dim contiguous;
// in a block format, K a multiple of its block (32, or 256 for the K-quants) and rows of whole
// blocks; f16 under f32 x, K a multiple of 32.
// y: [..., N] with x's leading dims, laid out like x (rows of one stride); must not overlap x,
// weight or bias. Throws InvalidArgument naming the argument for bad shapes, dtypes or layouts,
// and for NaN in x, weight, bias or residual (after the run).
void linear(Context& ctx, const TensorView& x, const TensorView& weight, const TensorView& y,
            const LinearOptions& options = {});
Tensor linear(Context& ctx, const TensorView& x, const TensorView& weight, const LinearOptions& options = {});

struct GatedLinearOptions {
  Activation activation = Activation::Silu;  // the gate's: SiLU (SwiGLU), tanh GELU (GeGLU), ...
  MatmulVariant variant = MatmulVariant::Auto;
  WeightKernel weightKernel = WeightKernel::Auto;
  std::optional<InputRmsNorm> inputNorm;  // as LinearOptions::inputNorm
};

// Whether linear() and gatedLinear() with an inputNorm normalize x inside the product's kernel:
// the float matrix-vector weight kernel (block-format weights, or f16 under f32 x, that kernel
// chosen for x's rows). Where it holds, a decoder's pre-norm costs no dispatch of its own.
bool normalizesInProduct(const Context& ctx, const TensorView& x, const TensorView& weight,
                         WeightKernel requested = WeightKernel::Auto);

// Whether linear() runs a step after the product (LinearOptions::ropeAppend, postNorm) in the
// product's own dispatch: the float matrix-vector weight kernel (as normalizesInProduct()) for at
// most kWeightMatvecMaxRows rows of x.
bool finishesRowsInProduct(const Context& ctx, const TensorView& x, const TensorView& weight,
                           WeightKernel requested = WeightKernel::Auto);

// The gated input of a LLaMA-family feed-forward layer: y[..., F] = act(x Wg^T) * (x Wu^T), where
// weight [2F, K] holds the gate projection's F rows, then the up projection's (one tensor, so
// that both are read in one pass). Weights and x as for linear(); y: [..., F], contiguous from
// its buffer's start. Where linear() would run the matrix-vector kernel on these weights (block
// formats or f16 under f32 x, few rows), one dispatch computes both products and the gate, each
// load of x serving both rows of W; otherwise the two products run as linear() calls, then
// gatedActivation(). Throws InvalidArgument naming the argument as linear() does (and for an odd
// row count), and for NaN in x or weight (after the run).
void gatedLinear(Context& ctx, const TensorView& x, const TensorView& weight, const TensorView& y,
                 const GatedLinearOptions& options = {});

// weight [N, K] in a block format (Q8_0, Q4_0, Q4_K, Q5_K, Q6_K; rows of whole blocks, of one
// stride) decoded into out [N, K], f32 or f16, contiguous: the floats the blocks stand for, as
// the host's decoder (core/storage_formats' decodeValues) gives them (f16 out: rounded to half).
// linear()'s dequantized weight kernel runs its float product on these rows. Throws
// InvalidArgument naming the argument for bad shapes, dtypes or layouts, and for NaN decoded from
// weight (after the run).
void dequantize(Context& ctx, const TensorView& weight, const TensorView& out);
Tensor dequantize(Context& ctx, const TensorView& weight, DType out = DType::F32);

struct MatmulOptions {
  bool transposeB = false;  // b is [N, K] (or [batch, N, K]) and used transposed
  float alpha = 1.0f;
  MatmulVariant variant = MatmulVariant::Auto;
};

// a [M, K] or [batch, M, K]; b [K, N] / [N, K] of the same rank and batch; c [M, N] /
// [batch, M, N]. Every operand's last dim is contiguous; the other strides are free (so
// transposed or sliced views work). NaN in a or b is reported as InvalidArgument after the run.
void matmul(Context& ctx, const TensorView& a, const TensorView& b, const TensorView& c,
            const MatmulOptions& options = {});
Tensor matmul(Context& ctx, const TensorView& a, const TensorView& b, const MatmulOptions& options = {});

}  // namespace vkattn
