// A GGUF model's tensors on the device, checked against the shapes its hyper-parameters imply.
// Matrices keep the file's type where the runtime's linear reads it as a weight and become f32
// otherwise; vectors (norms, biases) become f32. The token embedding stays in the mapped file and
// only the rows a step needs are decoded on the host.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"
#include "vkattn/io/ggml_types.hpp"
#include "vkattn/ops/activation.hpp"
#include "vkattn/ops/linear.hpp"

namespace vkattn {
class GgufFile;
}

namespace vkattn::detail {

// The device dtype a linear weight of this GGUF type and row length is kept in (nullopt: decoded
// to f32).
std::optional<DType> linearWeightType(GgmlType type, int64_t cols) noexcept;

// Rows first .. first + count of the 2-D tensor `name` as a weight on the device.
Tensor deviceRows(const Context& ctx, const GgufFile& file, const std::string& name, int64_t first, int64_t count);
// `name` as an [rows, cols] weight matrix (InvalidArgument naming the tensor for another shape).
Tensor deviceMatrix(const Context& ctx, const GgufFile& file, const std::string& name, int64_t rows, int64_t cols);

// The matrices `names` ([rows[i], cols] each) stacked into one weight [sum of rows, cols], where
// they share a type and fit `maxBytes` together (nullopt otherwise), kept as deviceMatrix keeps
// each.
std::optional<Tensor> stackedMatrix(const Context& ctx, const GgufFile& file, const std::vector<std::string>& names,
                                    const std::vector<int64_t>& rows, int64_t cols, uint64_t maxBytes);

// A weight matrix [rows, cols] kept as blocks of whole rows of at most `maxBytes` each, so that a
// matrix larger than one storage buffer (a large vocabulary's output projection on a device whose
// buffers stop at 128 MiB) still runs: each block writes its own columns of y.
class RowBlockMatrix {
 public:
  RowBlockMatrix() = default;
  RowBlockMatrix(const Context& ctx, const GgufFile& file, const std::string& name, int64_t rows, int64_t cols,
                 uint64_t maxBytes);
  // y[..., rows] = x[..., cols] W^T (+ residual, shaped like y); x normalized by `inputNorm`
  // first where given (LinearOptions::inputNorm); then y = postNorm.residual + rmsNorm(y) * weight
  // where given (LinearOptions::postNorm: in the product's dispatch where one block holds W);
  // call inside a Batch.
  void apply(Context& ctx, const TensorView& x, const TensorView& y,
             const std::optional<TensorView>& residual = std::nullopt,
             const std::optional<InputRmsNorm>& inputNorm = std::nullopt,
             const std::optional<PostNormStep>& postNorm = std::nullopt) const;
  std::size_t blocks() const noexcept { return m_blocks.size(); }
  // The first block, whose kernel decides whether an input norm folds into these products.
  const Tensor& first() const { return m_blocks.front(); }

 private:
  std::vector<Tensor> m_blocks;
  std::vector<int64_t> m_firstRows;
};
// A feed-forward layer's gate and up projections (each [rows, cols]), applied as
// y = act(x Wg^T) * (x Wu^T): stacked into one [2 rows, cols] weight where both tensors have the
// same type and fit one storage buffer together, so that gatedLinear reads both in one pass (one
// dispatch when decoding); otherwise kept as row blocks each, two products and gatedActivation.
class GatedProjections {
 public:
  GatedProjections(const Context& ctx, const GgufFile& file, const std::string& gate, const std::string& up,
                   int64_t rows, int64_t cols, uint64_t maxBytes);
  // x [..., cols] into y [..., rows] (contiguous); call inside a Batch (the unstacked path takes
  // scratch).
  void apply(Context& ctx, const TensorView& x, const TensorView& y, Activation act,
             const std::optional<InputRmsNorm>& inputNorm = std::nullopt) const;
  // The weight whose kernel decides whether an input norm folds into these products.
  const Tensor& first() const { return m_stacked ? *m_stacked : m_gate.first(); }

 private:
  std::optional<Tensor> m_stacked;
  RowBlockMatrix m_gate, m_up;
};

// `name`'s values, checked to be a [size] vector.
std::vector<float> hostVector(const GgufFile& file, const std::string& name, int64_t size);
// `name` as an f32 [size] vector.
Tensor deviceVector(const Context& ctx, const GgufFile& file, const std::string& name, int64_t size);
std::optional<Tensor> optionalVector(const Context& ctx, const GgufFile& file, const std::string& name, int64_t size);

// Rows of token_embd.weight: gathered on the device (embedding(), decoding the file's format)
// where the table is placed there, else decoded on the host from the file's bytes.
class TokenEmbedding {
 public:
  TokenEmbedding(const GgufFile& file, int64_t vocab, int64_t dim);
  // [ids.size(), dim] f32; InvalidArgument("ids") naming an id outside [0, vocab).
  std::vector<float> rows(std::span<const int32_t> ids) const;
  // Keeps the table on the device in the form linear() keeps weights in (f32, f16 or a block
  // format; embedding() gathers f32 rows from each) where one buffer of maxBytes holds it:
  // `tiedOutput`, the output matrix's one block, where the model ties the two (the same tensor),
  // else an upload.
  void placeOnDevice(const Context& ctx, const Tensor* tiedOutput, uint64_t maxBytes);
  // The table on the device, or nullptr.
  const Tensor* deviceTable() const noexcept { return m_deviceTable; }

 private:
  const GgufFile* m_file;
  GgmlType m_type;
  int64_t m_vocab, m_dim;
  uint64_t m_rowBytes;
  std::optional<Tensor> m_uploaded;
  const Tensor* m_deviceTable = nullptr;
};

}  // namespace vkattn::detail
