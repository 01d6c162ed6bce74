#include "language_model_weights.hpp"

#include "vkattn/core/error.hpp"
#include "vkattn/io/ggml_quant.hpp"
#include "vkattn/io/gguf.hpp"

namespace vkattn::detail {
namespace {

const GgufTensorInfo& shaped(const GgufFile& file, const std::string& name, const Shape& shape) {
  const GgufTensorInfo& info = file.tensor(name);
  if (info.rowMajorShape() != shape)
    throw InvalidArgument(name, "is " + toString(Shape(info.rowMajorShape())) + ", the model's hyper-parameters need " +
                                    toString(shape));
  return info;
}

}  // namespace

std::optional<DType> linearWeightType(GgmlType type) noexcept {
  switch (type) {
    case GgmlType::F32: return DType::F32;
    case GgmlType::Q8_0: return DType::Q8_0;
    case GgmlType::Q4_0: return DType::Q4_0;
    case GgmlType::Q4_K: return DType::Q4_K;
    case GgmlType::Q5_K: return DType::Q5_K;
    case GgmlType::Q6_K: return DType::Q6_K;
    default: return std::nullopt;  // F16 and BF16 among them: linear takes f32 activations with f32 weights
  }
}

Tensor deviceMatrix(const Context& ctx, const GgufFile& file, const std::string& name, int64_t rows, int64_t cols) {
  const GgufTensorInfo& info = shaped(file, name, {rows, cols});
  if (const std::optional<DType> kept = linearWeightType(info.type)) {
    Tensor t = ctx.tensor({rows, cols}, *kept);
    const std::span<const uint8_t> bytes = file.tensorBytes(name);
    t.uploadBytes(bytes.data(), bytes.size());
    return t;
  }
  const std::vector<float> values = file.dequantize(name);
  return ctx.tensor({rows, cols}, values);
}

Tensor deviceVector(const Context& ctx, const GgufFile& file, const std::string& name, int64_t size) {
  shaped(file, name, {size});
  const std::vector<float> values = file.dequantize(name);
  return ctx.tensor({size}, values);
}

std::optional<Tensor> optionalVector(const Context& ctx, const GgufFile& file, const std::string& name, int64_t size) {
  if (!file.contains(name)) return std::nullopt;
  return deviceVector(ctx, file, name, size);
}

TokenEmbedding::TokenEmbedding(const GgufFile& file, int64_t vocab, int64_t dim)
    : m_file(&file), m_vocab(vocab), m_dim(dim) {
  const GgufTensorInfo& info = shaped(file, "token_embd.weight", {vocab, dim});
  m_type = info.type;
  if (!ggmlCanDequantize(m_type))
    throw Unsupported("tensor 'token_embd.weight': type " + ggmlTypeName(m_type) + " (vkattn decodes " +
                      ggmlDequantizableTypes() + ")");
  m_rowBytes = ggmlStorageBytes(m_type, static_cast<uint64_t>(dim));
}

std::vector<float> TokenEmbedding::rows(std::span<const int32_t> ids) const {
  const std::span<const uint8_t> table = m_file->tensorBytes("token_embd.weight");
  std::vector<float> out;
  out.reserve(ids.size() * static_cast<std::size_t>(m_dim));
  for (int32_t id : ids) {
    if (id < 0 || id >= m_vocab)
      throw InvalidArgument("ids", "token " + std::to_string(id) + " is outside the vocabulary [0, " +
                                       std::to_string(m_vocab) + ")");
    const std::vector<float> row =
        dequantizeGgml(m_type, table.subspan(static_cast<std::size_t>(id) * m_rowBytes, m_rowBytes),
                       static_cast<uint64_t>(m_dim));
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

}  // namespace vkattn::detail
