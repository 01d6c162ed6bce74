// Kernel-variant overrides from the environment (VKATTN_ATTENTION_VARIANT, VKATTN_MATMUL_VARIANT,
// VKATTN_WEIGHT_KERNEL):
// one rule for every op that has variants.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "vkattn/core/error.hpp"

namespace vkattn::detail {

// The variant environment variable `var` names through `named` (a name -> optional variant
// lookup, the op's public one); none when the variable is unset, empty or names `autoValue`.
// Any other value throws InvalidArgument naming the variable and the `expected` names.
template <typename Variant, typename Named>
std::optional<Variant> variantFromEnvironment(const char* var, Named named, std::string_view expected,
                                              Variant autoValue) {
  const char* env = std::getenv(var);
  if (!env || !*env) return std::nullopt;
  const std::optional<Variant> variant = named(env);
  if (!variant) throw InvalidArgument(var, "'" + std::string(env) + "', expected " + std::string(expected));
  if (*variant == autoValue) return std::nullopt;
  return variant;
}

}  // namespace vkattn::detail
