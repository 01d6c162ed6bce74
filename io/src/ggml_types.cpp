#include "vkattn/io/ggml_types.hpp"

#include <array>

namespace vkattn {
namespace {

constexpr uint32_t kQK_K = 256;  // elements per super-block of the K-quants

struct Row {
  uint32_t id;
  GgmlTypeTraits traits;
  std::optional<DType> storage;  // the vkattn dtype that shares this layout, if any
};

// A type whose layout is a vkattn dtype's takes its block from kDTypeLayouts (core/dtype.hpp).
constexpr Row shared(uint32_t id, const char* name, DType dtype) {
  return {id, {name, dtypeLayout(dtype).blockElements, dtypeLayout(dtype).blockBytes}, dtype};
}
constexpr Row other(uint32_t id, const char* name, uint32_t blockElements, uint32_t blockBytes) {
  return {id, {name, blockElements, blockBytes}, std::nullopt};
}

// Block sizes as in ggml's type_traits table (ggml.c) and gguf-py's GGML_QUANT_SIZES (the tests
// check the shared ones against gguf-py).
constexpr std::array kTypes = {
    shared(0, "F32", DType::F32),
    shared(1, "F16", DType::F16),
    shared(2, "Q4_0", DType::Q4_0),
    other(3, "Q4_1", 32, 2 + 2 + 16),
    other(6, "Q5_0", 32, 2 + 4 + 16),
    other(7, "Q5_1", 32, 2 + 2 + 4 + 16),
    shared(8, "Q8_0", DType::Q8_0),
    other(9, "Q8_1", 32, 4 + 4 + 32),
    other(10, "Q2_K", kQK_K, 2 + 2 + kQK_K / 16 + kQK_K / 4),
    other(11, "Q3_K", kQK_K, 2 + kQK_K / 4 + kQK_K / 8 + 12),
    shared(12, "Q4_K", DType::Q4_K),
    shared(13, "Q5_K", DType::Q5_K),
    shared(14, "Q6_K", DType::Q6_K),
    other(15, "Q8_K", kQK_K, 4 + kQK_K + kQK_K / 8),
    other(16, "IQ2_XXS", kQK_K, 2 + kQK_K / 4),
    other(17, "IQ2_XS", kQK_K, 2 + kQK_K / 4 + kQK_K / 32),
    other(18, "IQ3_XXS", kQK_K, 2 + kQK_K / 4 + kQK_K / 8),
    other(19, "IQ1_S", kQK_K, 2 + kQK_K / 8 + kQK_K / 16),
    other(20, "IQ4_NL", 32, 2 + 16),
    other(21, "IQ3_S", kQK_K, 2 + kQK_K / 4 + kQK_K / 8 + kQK_K / 32 + 4),
    other(22, "IQ2_S", kQK_K, 2 + kQK_K / 4 + kQK_K / 16),
    other(23, "IQ4_XS", kQK_K, 2 + 2 + kQK_K / 2 + kQK_K / 64),
    other(24, "I8", 1, 1),
    other(25, "I16", 1, 2),
    other(26, "I32", 1, 4),
    other(27, "I64", 1, 8),
    other(28, "F64", 1, 8),
    other(29, "IQ1_M", kQK_K, kQK_K / 8 + kQK_K / 16 + kQK_K / 32),
    shared(30, "BF16", DType::BF16),
    other(34, "TQ1_0", kQK_K, 2 + 4 * 13),
    other(35, "TQ2_0", kQK_K, 2 + 64),
    other(39, "MXFP4", 32, 1 + 16),
    other(40, "NVFP4", 64, 4 + 32),
    other(41, "Q1_0", 128, 2 + 16),
};

}  // namespace

std::optional<GgmlTypeTraits> ggmlTypeTraits(uint32_t id) noexcept {
  for (const Row& row : kTypes)
    if (row.id == id) return row.traits;
  return std::nullopt;
}

GgmlTypeTraits ggmlTypeTraits(GgmlType type) noexcept {
  const auto traits = ggmlTypeTraits(static_cast<uint32_t>(type));
  return traits ? *traits : GgmlTypeTraits{"?", 1, 1};
}

std::optional<DType> ggmlStorageFormat(GgmlType type) noexcept {
  for (const Row& row : kTypes)
    if (row.id == static_cast<uint32_t>(type)) return row.storage;
  return std::nullopt;
}

std::string ggmlStorageFormatTypeNames() {
  std::string names;
  for (const DTypeLayout& layout : kDTypeLayouts)  // in vkattn's order: F32, F16, BF16, Q8_0, ...
    for (const Row& row : kTypes)
      if (row.storage == layout.dtype) names += (names.empty() ? "" : ", ") + std::string(row.traits.name);
  return names;
}

std::string ggmlTypeName(GgmlType type) {
  const auto traits = ggmlTypeTraits(static_cast<uint32_t>(type));
  return traits ? traits->name : "ggml type " + std::to_string(static_cast<uint32_t>(type));
}

}  // namespace vkattn
