// Launching linear()'s kernels for weights in a block format, or f16 weights under f32
// activations (linear_q_matvec, linear_q_tiled):
// linear.cpp fills the MatmulParams from checked views (bOffset and bStrideRow in bytes); this
// picks the kernel and its shape for the device, checks the loop budget and records the dispatch.
#pragma once

#include "matmul_kernel.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/ops/matmul_variant.hpp"

namespace vkattn::detail {

// Whether linear() runs weights of this dtype under x of that one through these kernels: block
// formats under f32 or f16 x, f16 under f32 x (half the bytes of f32 weights).
bool isWeightKernelPair(DType weight, DType x) noexcept;
// Weights per unit, the kernels' step along K (weight_formats.glsl): K must be a multiple.
uint32_t weightKernelUnit(DType weight) noexcept;

// Records y = act(x W^T + bias) + residual for call.params.m rows of x (more than
// kWeightMatvecMaxRows take several matvec dispatches) and submits unless a batch is open. With
// `gated` (the matrix-vector kernels only; gatedLinear), W holds 2N rows and y = act(x W[:N]^T) *
// (x W[N:]^T), call.params.n = N. With call.inputNorm (the Matvec kernel only; linear() decides),
// x is normalized by RMSNorm in the kernel by that weight (params.inputNormOffset, inputNormEps).
void runWeightLinear(Context& ctx, const MatmulCall& call, DType weightDtype, WeightKernel requested,
                     bool gated = false);

}  // namespace vkattn::detail
