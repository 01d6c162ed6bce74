// Which matmul kernel family runs a dense layer or matrix product (see vkattn/ops/linear.hpp), its
// names, and how Auto and the VKATTN_MATMUL_VARIANT override resolve on a context.
#pragma once

#include <optional>
#include <string_view>

#include "vkattn/core/context.hpp"

namespace vkattn {

enum class MatmulVariant { Auto, Rows, Tiled, Naive, Coopmat, CoopmatEmulated };

const char* toString(MatmulVariant variant) noexcept;
// The variant named rows (or cpu), tiled (or gpu), naive, coopmat, coopmat-emulated or auto; none
// for any other name (VKATTN_MATMUL_VARIANT takes these).
std::optional<MatmulVariant> matmulVariantNamed(std::string_view name) noexcept;
// The names matmulVariantNamed takes, for error messages.
inline constexpr std::string_view kMatmulVariantNames = "rows, tiled, naive, coopmat, coopmat-emulated or auto";

// The variant VKATTN_MATMUL_VARIANT names, none when unset; throws InvalidArgument naming the
// variable for any other name than matmulVariantNamed takes.
std::optional<MatmulVariant> matmulVariantFromEnvironment();
// The variant Auto resolves to on this context (environment override included).
MatmulVariant resolveMatmulVariant(const Context& ctx, MatmulVariant requested = MatmulVariant::Auto);

}  // namespace vkattn
