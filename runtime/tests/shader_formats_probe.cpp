// Compiled, not run, by the shader_formats_tables test: the generated per-format tables
// (vkattn_shader_formats in shaders/CMakeLists.txt) map each format to its own module, and a
// format a family is not built for to none.
#include <string_view>

#include "runtime_shader_ids.hpp"

namespace shaders = vkattn::detail::shaders;
using vkattn::DType;

constexpr bool names(const vkattn::detail::ShaderId* id, std::string_view name) {
  return id != nullptr && std::string_view(id->name) == name;
}

static_assert(names(shaders::encode_storage_by_format.find(DType::Q8_0), "encode_storage_q8_0"));
static_assert(names(shaders::encode_storage_by_format.find(DType::BF16), "encode_storage_bf16"));
static_assert(shaders::encode_storage_by_format.find(DType::F32) == nullptr);
static_assert(names(shaders::embedding_by_format.find(DType::Q5_K), "embedding_q5_k"));
static_assert(shaders::embedding_by_format.find(DType::F16) == nullptr);
static_assert(names(&shaders::linear_q_matvec_by_format.find(DType::Q6_K)->f16, "linear_q_matvec_q6_k_f16"));
static_assert(names(&shaders::linear_q_tiled_by_format.find(DType::Q4_0)->f32, "linear_q_tiled_q4_0_f32"));
static_assert(names(&shaders::linear_q_matvec_int8_by_format.find(DType::Q4_K)->f32, "linear_q_matvec_int8_q4_k_f32"));
static_assert(names(&shaders::attention_rows_kv_by_format.find(DType::Q4_0)->f16, "attention_rows_f16_kv_q4_0"));
static_assert(shaders::attention_rows_kv_by_format.find(DType::Q4_K) == nullptr);
