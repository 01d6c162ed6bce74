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

}  // namespace vkattn
