// Which matmul kernel family runs a dense layer or matrix product (see vkattn/ops/linear.hpp), its
// names, and how Auto and the VKATTN_MATMUL_VARIANT override resolve on a context; and which of
// the kernels runs a dense layer whose weights are in a block format (VKATTN_WEIGHT_KERNEL).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "vkattn/core/context.hpp"

namespace vkattn {

// Coopmat2Workgroup: f16 products on VK_NV_cooperative_matrix2's workgroup-scope matrices loaded by
// tensor addressing (matmul_coopmat2_wg.comp; NVIDIA), where coopmat2WorkgroupChoiceFor(info).usable
// holds; written, not yet executed on any device, so only when asked for.
enum class MatmulVariant { Auto, Rows, Tiled, Naive, Coopmat, CoopmatEmulated, Matvec, Coopmat2Workgroup };

const char* toString(MatmulVariant variant) noexcept;
// The variant named rows (or cpu), tiled (or gpu), naive, coopmat, coopmat-emulated, coopmat2-wg,
// matvec or auto; none for any other name (VKATTN_MATMUL_VARIANT takes these). On GPUs Auto runs products of
// at most kMatvecMaxRows rows with B [N, K] (a dense layer at decode) on Matvec, the
// matrix-vector kernel: it reads the weights once at memory speed.
std::optional<MatmulVariant> matmulVariantNamed(std::string_view name) noexcept;
// The names matmulVariantNamed takes, for error messages.
inline constexpr std::string_view kMatmulVariantNames =
    "rows, tiled, naive, coopmat, coopmat-emulated, coopmat2-wg, matvec or auto";

// The variant VKATTN_MATMUL_VARIANT names, none when unset; throws InvalidArgument naming the
// variable for any other name than matmulVariantNamed takes.
std::optional<MatmulVariant> matmulVariantFromEnvironment();
// The variant Auto resolves to on this context (environment override included).
MatmulVariant resolveMatmulVariant(const Context& ctx, MatmulVariant requested = MatmulVariant::Auto);

// linear() with weights in a block format (Q8_0, Q4_0, Q4_K, Q5_K, Q6_K): Matvec (decode: each
// workgroup owns one output column, at most 8 rows of x per dispatch, more in several, each
// decoded weight reused from registers for its 8 rows), MatvecInt8 (the same with x first
// quantized to 8 bits in blocks of 32 and the weights kept as integers: packed 8-bit dot products,
// as llama.cpp's integer-dot path; adds x's rounding, at most half of max |x| / 127 of its block,
// to each product; f16 weights take Matvec), Tiled (prompts: shared-memory tiles of x and decoded
// W), Dequantized (prompts: the weights decoded to x's dtype by dequantize() into scratch, then
// the float product MatmulVariant picks, cooperative matrices where the device has them; f16
// weights take Tiled) or Coopmat2Workgroup (prompts on VK_NV_cooperative_matrix2's workgroup-scope
// matrices, the weights decoded as the tensor-addressed loads read them, x f32 or f16; where
// coopmat2WorkgroupChoiceFor(info).usable holds and the device has bufferDeviceAddress; written,
// not yet executed on any device). Auto takes Matvec up to kWeightMatvecMaxRows rows of x and on
// CPU drivers (no barriers, no shared memory), Tiled beyond on GPUs; the others only when asked
// for, until a GPU has measured them; VKATTN_WEIGHT_KERNEL=matvec|matvec-int8|tiled|dequantized|
// coopmat2-wg|auto overrides; VKATTN_PROMPT_WEIGHT_KERNEL (the same names, auto: Tiled) names
// Auto's kernel for more than kWeightMatvecMaxRows rows on GPUs only (a model's prompt, its
// decoded tokens left on Matvec).
enum class WeightKernel { Auto, Matvec, MatvecInt8, Tiled, Dequantized, Coopmat2Workgroup };

inline constexpr int64_t kWeightMatvecMaxRows = 8;
inline constexpr int64_t kMatvecMaxRows = 8;
const char* toString(WeightKernel kernel) noexcept;
std::optional<WeightKernel> weightKernelNamed(std::string_view name) noexcept;
inline constexpr std::string_view kWeightKernelNames = "matvec, matvec-int8, tiled, dequantized, coopmat2-wg or auto";
// The kernel VKATTN_WEIGHT_KERNEL names, none when unset; InvalidArgument naming the variable for
// any other name than weightKernelNamed takes.
std::optional<WeightKernel> weightKernelFromEnvironment();
// The kernel VKATTN_PROMPT_WEIGHT_KERNEL names, none when unset (InvalidArgument naming the
// variable as above).
std::optional<WeightKernel> promptWeightKernelFromEnvironment();
// The kernel Auto resolves to on this context for `rows` rows of x (environment overrides included).
WeightKernel resolveWeightKernel(const Context& ctx, int64_t rows, WeightKernel requested = WeightKernel::Auto);
// The kernel linear() runs for `rows` rows of x against weights of dtype `weight` (a block format,
// or f16 under f32 x): resolveWeightKernel's, with f16 weights, which have no quants for integer
// dot products nor blocks to decode first, taking Matvec for MatvecInt8 and Tiled for Dequantized.
WeightKernel weightKernelFor(const Context& ctx, int64_t rows, DType weight,
                             WeightKernel requested = WeightKernel::Auto);

}  // namespace vkattn
