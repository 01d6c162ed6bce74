#include "language_model_weights.hpp"

#include <algorithm>

#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/io/ggml_quant.hpp"
#include "vkattn/io/gguf.hpp"
#include "vkattn/ops/elementwise.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn::detail {
namespace {

const GgufTensorInfo& shaped(const GgufFile& file, const std::string& name, const Shape& shape) {
  const GgufTensorInfo& info = file.tensor(name);
  if (info.rowMajorShape() != shape)
    throw InvalidArgument(
        name, "is " + toString(Shape(info.rowMajorShape())) + ", the model's hyper-parameters need " + toString(shape));
  return info;
}

}  // namespace

// Rows first .. first + count of the matrix `name` on the device, in the file's type where linear
// reads it as a weight, else decoded to f32.
Tensor deviceRows(const Context& ctx, const GgufFile& file, const std::string& name, int64_t first, int64_t count) {
  const GgufTensorInfo& info = file.tensor(name);
  const auto cols = static_cast<int64_t>(info.dims[0]);
  if (!ggmlCanDequantize(info.type))
    throw Unsupported("tensor '" + name + "': type " + ggmlTypeName(info.type) + " (vkattn reads " +
                      ggmlStorageFormatTypeNames() + ")");
  const uint64_t rowBytes = ggmlStorageBytes(info.type, static_cast<uint64_t>(cols));
  const std::span<const uint8_t> rows =
      file.tensorBytes(name).subspan(static_cast<std::size_t>(static_cast<uint64_t>(first) * rowBytes),
                                     static_cast<std::size_t>(static_cast<uint64_t>(count) * rowBytes));
  if (const std::optional<DType> kept = linearWeightType(info.type, cols)) {
    Tensor t = ctx.tensor({count, cols}, *kept);
    t.uploadBytes(rows.data(), rows.size());
    return t;
  }
  return ctx.tensor({count, cols}, dequantizeGgml(info.type, rows, static_cast<uint64_t>(count * cols)));
}

std::optional<DType> linearWeightType(GgmlType type, int64_t cols) noexcept {
  // The activations are f32: linear reads f32, f16 (K a multiple of 32) and block-format weights
  // under them; BF16 is widened.
  const std::optional<DType> format = ggmlStorageFormat(type);
  if (format == DType::F16) return cols % 32 == 0 ? format : std::nullopt;
  return format && (*format == DType::F32 || isWeightFormat(*format)) ? format : std::nullopt;
}

Tensor deviceMatrix(const Context& ctx, const GgufFile& file, const std::string& name, int64_t rows, int64_t cols) {
  shaped(file, name, {rows, cols});
  return deviceRows(ctx, file, name, 0, rows);
}

RowBlockMatrix::RowBlockMatrix(const Context& ctx, const GgufFile& file, const std::string& name, int64_t rows,
                               int64_t cols, uint64_t maxBytes) {
  const GgufTensorInfo& info = shaped(file, name, {rows, cols});
  const uint64_t rowBytes = linearWeightType(info.type, cols) ? ggmlStorageBytes(info.type, static_cast<uint64_t>(cols))
                                                              : static_cast<uint64_t>(cols) * sizeof(float);
  const auto perBlock = static_cast<int64_t>(std::max<uint64_t>(1, maxBytes / rowBytes));
  for (int64_t first = 0; first < rows; first += perBlock) {
    m_blocks.push_back(deviceRows(ctx, file, name, first, std::min(perBlock, rows - first)));
    m_firstRows.push_back(first);
  }
}

void RowBlockMatrix::apply(Context& ctx, const TensorView& x, const TensorView& y,
                           const std::optional<TensorView>& residual, const std::optional<InputRmsNorm>& inputNorm,
                           const std::optional<PostNormStep>& postNorm) const {
  const int64_t last = y.rank() - 1;
  if (postNorm && m_blocks.size() == 1) {  // the whole row in one product: the norm in its dispatch
    linear(ctx, x, m_blocks.front(), y, {.inputNorm = inputNorm, .postNorm = postNorm});
    return;
  }
  for (std::size_t b = 0; b < m_blocks.size(); ++b) {
    const int64_t count = m_blocks[b].shape()[0];
    LinearOptions options{.inputNorm = inputNorm};
    if (residual) options.residual = residual->sliced(last, m_firstRows[b], count);
    linear(ctx, x, m_blocks[b], y.sliced(last, m_firstRows[b], count), options);
  }
  if (postNorm) rmsNorm(ctx, y, y, {.weight = postNorm->weight, .eps = postNorm->eps, .residual = postNorm->residual});
}

std::optional<Tensor> stackedMatrix(const Context& ctx, const GgufFile& file, const std::vector<std::string>& names,
                                    const std::vector<int64_t>& rows, int64_t cols, uint64_t maxBytes) {
  const GgmlType type = shaped(file, names.front(), {rows.front(), cols}).type;
  const std::optional<DType> kept = linearWeightType(type, cols);
  const uint64_t rowBytes =
      kept ? ggmlStorageBytes(type, static_cast<uint64_t>(cols)) : static_cast<uint64_t>(cols) * sizeof(float);
  int64_t total = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (shaped(file, names[i], {rows[i], cols}).type != type) return std::nullopt;
    total += rows[i];
  }
  if (static_cast<uint64_t>(total) * rowBytes > maxBytes) return std::nullopt;
  // The file's bytes where linear reads its type, else the values decoded to f32.
  std::vector<uint8_t> bytes;
  for (const std::string& name : names) {
    if (kept) {
      const std::span<const uint8_t> part = file.tensorBytes(name);
      bytes.insert(bytes.end(), part.begin(), part.end());
    } else {
      const std::vector<float> part = file.dequantize(name);
      const auto* first = reinterpret_cast<const uint8_t*>(part.data());
      bytes.insert(bytes.end(), first, first + part.size() * sizeof(float));
    }
  }
  Tensor stacked = ctx.tensor({total, cols}, kept.value_or(DType::F32));
  stacked.uploadBytes(bytes.data(), bytes.size());
  return stacked;
}

GatedProjections::GatedProjections(const Context& ctx, const GgufFile& file, const std::string& gate,
                                   const std::string& up, int64_t rows, int64_t cols, uint64_t maxBytes)
    : m_stacked(stackedMatrix(ctx, file, {gate, up}, {rows, rows}, cols, maxBytes)) {
  if (m_stacked) return;
  m_gate = RowBlockMatrix(ctx, file, gate, rows, cols, maxBytes);
  m_up = RowBlockMatrix(ctx, file, up, rows, cols, maxBytes);
}

void GatedProjections::apply(Context& ctx, const TensorView& x, const TensorView& y, Activation act,
                             const std::optional<InputRmsNorm>& inputNorm) const {
  if (m_stacked) {
    gatedLinear(ctx, x, m_stacked->view(), y, {.activation = act, .inputNorm = inputNorm});
    return;
  }
  const TensorView up = ctx.scratch(y.shape, y.dtype);
  m_gate.apply(ctx, x, y, std::nullopt, inputNorm);
  m_up.apply(ctx, x, up, std::nullopt, inputNorm);
  gatedActivation(ctx, act, y, up, y);
}

std::vector<float> hostVector(const GgufFile& file, const std::string& name, int64_t size) {
  shaped(file, name, {size});
  return file.dequantize(name);
}

Tensor deviceVector(const Context& ctx, const GgufFile& file, const std::string& name, int64_t size) {
  return ctx.tensor({size}, hostVector(file, name, size));
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
                      ggmlStorageFormatTypeNames() + ")");
  m_rowBytes = ggmlStorageBytes(m_type, static_cast<uint64_t>(dim));
}

std::vector<float> TokenEmbedding::rows(std::span<const int32_t> ids) const {
  const std::span<const uint8_t> table = m_file->tensorBytes("token_embd.weight");
  std::vector<float> out;
  out.reserve(ids.size() * static_cast<std::size_t>(m_dim));
  for (int32_t id : ids) {
    if (id < 0 || id >= m_vocab)
      throw InvalidArgument(
          "ids", "token " + std::to_string(id) + " is outside the vocabulary [0, " + std::to_string(m_vocab) + ")");
    const std::vector<float> row = dequantizeGgml(
        m_type, table.subspan(static_cast<std::size_t>(id) * m_rowBytes, m_rowBytes), static_cast<uint64_t>(m_dim));
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

void TokenEmbedding::placeOnDevice(const Context& ctx, const Tensor* tiedOutput, uint64_t maxBytes) {
  const std::optional<DType> kept = linearWeightType(m_type, m_dim);
  const DType table = kept.value_or(DType::F32);
  if (tiedOutput && tiedOutput->dtype() == table && tiedOutput->shape() == Shape{m_vocab, m_dim}) {
    m_deviceTable = tiedOutput;
    return;
  }
  const uint64_t rowBytes = kept ? m_rowBytes : static_cast<uint64_t>(m_dim) * sizeof(float);
  if (rowBytes * static_cast<uint64_t>(m_vocab) > maxBytes) return;
  m_uploaded = deviceRows(ctx, *m_file, "token_embd.weight", 0, m_vocab);
  m_deviceTable = &*m_uploaded;
}

}  // namespace vkattn::detail
