#include "vkattn/io/ggml_types.hpp"

#include <array>

namespace vkattn {
namespace {

constexpr uint32_t kQK_K = 256;  // elements per super-block of the K-quants

struct Row {
  uint32_t id;
  GgmlTypeTraits traits;
};

// Block sizes as in ggml's type_traits table (ggml.c) and gguf-py's GGML_QUANT_SIZES.
constexpr std::array kTypes = {
    Row{0, {"F32", 1, 4}},
    Row{1, {"F16", 1, 2}},
    Row{2, {"Q4_0", 32, 2 + 16}},
    Row{3, {"Q4_1", 32, 2 + 2 + 16}},
    Row{6, {"Q5_0", 32, 2 + 4 + 16}},
    Row{7, {"Q5_1", 32, 2 + 2 + 4 + 16}},
    Row{8, {"Q8_0", 32, 2 + 32}},
    Row{9, {"Q8_1", 32, 4 + 4 + 32}},
    Row{10, {"Q2_K", kQK_K, 2 + 2 + kQK_K / 16 + kQK_K / 4}},
    Row{11, {"Q3_K", kQK_K, 2 + kQK_K / 4 + kQK_K / 8 + 12}},
    Row{12, {"Q4_K", kQK_K, 2 + 2 + kQK_K / 2 + 12}},
    Row{13, {"Q5_K", kQK_K, 2 + 2 + kQK_K / 2 + kQK_K / 8 + 12}},
    Row{14, {"Q6_K", kQK_K, 2 + kQK_K / 2 + kQK_K / 4 + kQK_K / 16}},
    Row{15, {"Q8_K", kQK_K, 4 + kQK_K + kQK_K / 8}},
    Row{16, {"IQ2_XXS", kQK_K, 2 + kQK_K / 4}},
    Row{17, {"IQ2_XS", kQK_K, 2 + kQK_K / 4 + kQK_K / 32}},
    Row{18, {"IQ3_XXS", kQK_K, 2 + kQK_K / 4 + kQK_K / 8}},
    Row{19, {"IQ1_S", kQK_K, 2 + kQK_K / 8 + kQK_K / 16}},
    Row{20, {"IQ4_NL", 32, 2 + 16}},
    Row{21, {"IQ3_S", kQK_K, 2 + kQK_K / 4 + kQK_K / 8 + kQK_K / 32 + 4}},
    Row{22, {"IQ2_S", kQK_K, 2 + kQK_K / 4 + kQK_K / 16}},
    Row{23, {"IQ4_XS", kQK_K, 2 + 2 + kQK_K / 2 + kQK_K / 64}},
    Row{24, {"I8", 1, 1}},
    Row{25, {"I16", 1, 2}},
    Row{26, {"I32", 1, 4}},
    Row{27, {"I64", 1, 8}},
    Row{28, {"F64", 1, 8}},
    Row{29, {"IQ1_M", kQK_K, kQK_K / 8 + kQK_K / 16 + kQK_K / 32}},
    Row{30, {"BF16", 1, 2}},
    Row{34, {"TQ1_0", kQK_K, 2 + 4 * 13}},
    Row{35, {"TQ2_0", kQK_K, 2 + 64}},
    Row{39, {"MXFP4", 32, 1 + 16}},
    Row{40, {"NVFP4", 64, 4 + 32}},
    Row{41, {"Q1_0", 128, 2 + 16}},
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

std::string ggmlTypeName(GgmlType type) {
  const auto traits = ggmlTypeTraits(static_cast<uint32_t>(type));
  return traits ? traits->name : "ggml type " + std::to_string(static_cast<uint32_t>(type));
}

}  // namespace vkattn
