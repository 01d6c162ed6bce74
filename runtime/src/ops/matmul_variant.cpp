#include "vkattn/ops/matmul_variant.hpp"

#include "variant_from_environment.hpp"

namespace vkattn {

std::optional<MatmulVariant> matmulVariantNamed(std::string_view s) noexcept {
  if (s == "rows" || s == "cpu") return MatmulVariant::Rows;
  if (s == "tiled" || s == "gpu") return MatmulVariant::Tiled;
  if (s == "naive") return MatmulVariant::Naive;
  if (s == "coopmat") return MatmulVariant::Coopmat;
  if (s == "coopmat-emulated") return MatmulVariant::CoopmatEmulated;
  if (s == "auto") return MatmulVariant::Auto;
  return std::nullopt;
}

const char* toString(MatmulVariant variant) noexcept {
  switch (variant) {
    case MatmulVariant::Auto: return "auto";
    case MatmulVariant::Rows: return "rows";
    case MatmulVariant::Tiled: return "tiled";
    case MatmulVariant::Naive: return "naive";
    case MatmulVariant::Coopmat: return "coopmat";
    case MatmulVariant::CoopmatEmulated: return "coopmat-emulated";
  }
  return "?";
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
  switch (kernel) {
    case WeightKernel::Auto: return "auto";
    case WeightKernel::Matvec: return "matvec";
    case WeightKernel::Tiled: return "tiled";
  }
  return "?";
}

std::optional<WeightKernel> weightKernelNamed(std::string_view s) noexcept {
  for (WeightKernel kernel : {WeightKernel::Auto, WeightKernel::Matvec, WeightKernel::Tiled})
    if (s == toString(kernel)) return kernel;
  return std::nullopt;
}

std::optional<WeightKernel> weightKernelFromEnvironment() {
  return detail::variantFromEnvironment("VKATTN_WEIGHT_KERNEL", weightKernelNamed, kWeightKernelNames,
                                        WeightKernel::Auto);
}

WeightKernel resolveWeightKernel(const Context& ctx, int64_t rows, WeightKernel requested) {
  if (requested != WeightKernel::Auto) return requested;
  if (auto env = weightKernelFromEnvironment()) return *env;
  const bool cpu = ctx.profile() == KernelProfile::CpuDriver;
  return cpu || rows <= kWeightMatvecMaxRows ? WeightKernel::Matvec : WeightKernel::Tiled;
}

}  // namespace vkattn
