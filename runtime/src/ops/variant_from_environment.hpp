// Kernel-variant names and overrides from the environment (VKATTN_ATTENTION_VARIANT,
// VKATTN_MATMUL_VARIANT, VKATTN_WEIGHT_KERNEL): one table and one rule for every op that has
// variants.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "vkattn/core/error.hpp"

namespace vkattn::detail {

// One row of a variant's name table; a variant may have several names (aliases), the first of its
// rows being the one toString gives.
template <typename Variant>
struct VariantName {
  std::string_view name;
  Variant variant;
};

template <typename Variant, std::size_t N>
constexpr std::optional<Variant> variantNamed(const VariantName<Variant> (&table)[N], std::string_view name) noexcept {
  for (const VariantName<Variant>& row : table)
    if (row.name == name) return row.variant;
  return std::nullopt;
}

// The variant's first name in the table (string literals, so data() ends in a NUL); "?" if absent.
template <typename Variant, std::size_t N>
constexpr const char* variantName(const VariantName<Variant> (&table)[N], Variant variant) noexcept {
  for (const VariantName<Variant>& row : table)
    if (row.variant == variant) return row.name.data();
  return "?";
}

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
