// A kernel's tile configuration forced from the environment, for tuning on a new device:
// VKATTN_ATTENTION_TILE=ROWSxKEYSxSTAGES (the cooperative-matrix attention kernels),
// VKATTN_MATMUL_TILE=FRAGSxBKxSTAGES (the cooperative-matrix matmul kernel) and
// VKATTN_WEIGHT_MATVEC_TILE=SPANxCOLSxWORKGROUP (the block-format matrix-vector kernel) replace
// the kernel's choice with that one; it must still fit the device (else the kernel's own refusal
// names what it needs).
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "vkattn/core/error.hpp"

namespace vkattn::detail {

// The three numbers `var` holds as AxBxC (each 1..4096); none when unset or empty; InvalidArgument
// naming the variable for anything else.
inline std::optional<std::array<uint32_t, 3>> tileOverride(const char* var) {
  const char* env = std::getenv(var);
  if (!env || !*env) return std::nullopt;
  std::array<uint32_t, 3> values{};
  const std::string text(env);
  std::size_t at = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::size_t end = text.find('x', at);
    if ((end == std::string::npos) != (i + 1 == values.size())) end = std::string::npos - 1;  // wrong count
    const std::string part = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    const bool digits = !part.empty() && part.size() <= 4 && part.find_first_not_of("0123456789") == std::string::npos;
    const unsigned long value = digits ? std::stoul(part) : 0;
    if (end == std::string::npos - 1 || value < 1 || value > 4096)
      throw InvalidArgument(var, "'" + text + "', expected three numbers AxBxC, each 1..4096");
    values[i] = static_cast<uint32_t>(value);
    at = end + 1;
  }
  return values;
}

}  // namespace vkattn::detail
