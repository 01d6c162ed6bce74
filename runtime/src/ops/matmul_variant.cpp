#include "vkattn/ops/matmul_variant.hpp"

#include "variant_from_environment.hpp"
#include "vkattn/core/storage_formats.hpp"

namespace vkattn {

namespace {

constexpr detail::VariantName<MatmulVariant> kMatmulVariants[] = {
    {"auto", MatmulVariant::Auto},       {"rows", MatmulVariant::Rows},
    {"cpu", MatmulVariant::Rows},        {"tiled", MatmulVariant::Tiled},
    {"gpu", MatmulVariant::Tiled},       {"naive", MatmulVariant::Naive},
    {"coopmat", MatmulVariant::Coopmat}, {"coopmat-emulated", MatmulVariant::CoopmatEmulated},
    {"matvec", MatmulVariant::Matvec},   {"coopmat2-wg", MatmulVariant::Coopmat2Workgroup}};

constexpr detail::VariantName<WeightKernel> kWeightKernels[] = {{"auto", WeightKernel::Auto},
                                                                {"matvec", WeightKernel::Matvec},
                                                                {"matvec-int8", WeightKernel::MatvecInt8},
                                                                {"tiled", WeightKernel::Tiled},
                                                                {"dequantized", WeightKernel::Dequantized},
                                                                {"coopmat2-wg", WeightKernel::Coopmat2Workgroup}};

}  // namespace

std::optional<MatmulVariant> matmulVariantNamed(std::string_view s) noexcept {
  return detail::variantNamed(kMatmulVariants, s);
}

const char* toString(MatmulVariant variant) noexcept {
  return detail::variantName(kMatmulVariants, variant);
}

std::optional<MatmulVariant> matmulVariantFromEnvironment() {
  return detail::variantFromEnvironment("VKATTN_MATMUL_VARIANT", matmulVariantNamed, kMatmulVariantNames,
                                        MatmulVariant::Auto);
}

MatmulVariant resolveMatmulVariant(const Context& ctx, MatmulVariant requested) {
  if (requested != MatmulVariant::Auto) return requested;
  if (auto env = matmulVariantFromEnvironment()) return *env;
  return ctx.profile() == KernelProfile::CpuDriver ? MatmulVariant::Rows : MatmulVariant::Tiled;
}

const char* toString(WeightKernel kernel) noexcept {
  return detail::variantName(kWeightKernels, kernel);
}

std::optional<WeightKernel> weightKernelNamed(std::string_view s) noexcept {
  return detail::variantNamed(kWeightKernels, s);
}

std::optional<WeightKernel> weightKernelFromEnvironment() {
  return detail::variantFromEnvironment("VKATTN_WEIGHT_KERNEL", weightKernelNamed, kWeightKernelNames,
                                        WeightKernel::Auto);
}

std::optional<WeightKernel> promptWeightKernelFromEnvironment() {
  return detail::variantFromEnvironment("VKATTN_PROMPT_WEIGHT_KERNEL", weightKernelNamed, kWeightKernelNames,
                                        WeightKernel::Auto);
}

WeightKernel resolveWeightKernel(const Context& ctx, int64_t rows, WeightKernel requested) {
  if (requested != WeightKernel::Auto) return requested;
  if (auto env = weightKernelFromEnvironment()) return *env;
  if (ctx.profile() == KernelProfile::CpuDriver || rows <= kWeightMatvecMaxRows) return WeightKernel::Matvec;
  return promptWeightKernelFromEnvironment().value_or(WeightKernel::Tiled);
}

WeightKernel weightKernelFor(const Context& ctx, int64_t rows, DType weight, WeightKernel requested) {
  const WeightKernel kernel = resolveWeightKernel(ctx, rows, requested);
  if (isWeightFormat(weight)) return kernel;
  // f16 weights have no quants to take integer dot products with, nor blocks to decode first.
  if (kernel == WeightKernel::MatvecInt8) return WeightKernel::Matvec;
  return kernel == WeightKernel::Dequantized ? WeightKernel::Tiled : kernel;
}

}  // namespace vkattn
