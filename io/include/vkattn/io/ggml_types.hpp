// ggml's tensor types as GGUF files name them: the numeric ids, names, and block layouts (elements
// per block, bytes per block) exactly as ggml defines them. Ids ggml has retired (4, 5, 31-33,
// 36-38) and ids beyond the table are unknown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "vkattn/core/dtype.hpp"

namespace vkattn {

enum class GgmlType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  IQ2_XXS = 16,
  IQ2_XS = 17,
  IQ3_XXS = 18,
  IQ1_S = 19,
  IQ4_NL = 20,
  IQ3_S = 21,
  IQ2_S = 22,
  IQ4_XS = 23,
  I8 = 24,
  I16 = 25,
  I32 = 26,
  I64 = 27,
  F64 = 28,
  IQ1_M = 29,
  BF16 = 30,
  TQ1_0 = 34,
  TQ2_0 = 35,
  MXFP4 = 39,
  NVFP4 = 40,
  Q1_0 = 41,
};

struct GgmlTypeTraits {
  const char* name;        // "F32", "Q4_K", ... as ggml spells it
  uint32_t blockElements;  // elements per block (1 for plain types)
  uint32_t blockBytes;     // bytes per block
};

// The traits of a type id ggml knows, or nullopt for an unknown id.
std::optional<GgmlTypeTraits> ggmlTypeTraits(uint32_t id) noexcept;
// The traits of a known type (every enumerator is one).
GgmlTypeTraits ggmlTypeTraits(GgmlType type) noexcept;
std::string ggmlTypeName(GgmlType type);
// The vkattn dtype whose layout the type shares (F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K:
// vkattn reads, writes and computes with these), or nullopt.
std::optional<DType> ggmlStorageFormat(GgmlType type) noexcept;
// Those types' names, "F32, F16, ...", for messages.
std::string ggmlStorageFormatTypeNames();

}  // namespace vkattn
