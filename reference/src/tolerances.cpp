#include "vkattn/reference/tolerances.hpp"

#include "vkattn/ops/op_row.hpp"

namespace vkattn::reference {

Tolerance toleranceFor(Checked what, DType storage) {
  const bool half = storage == DType::F16;
  switch (what) {
    case Checked::Softmax:
    case Checked::LayerNorm:
    case Checked::RmsNorm:
    case Checked::Rope:
    case Checked::Attention:
    case Checked::Linear:
    case Checked::Elementwise:
      return opRow(toString(what)).toleranceFor(half ? DType::F16 : DType::F32);
    case Checked::AttentionLse:
      return {2e-5, 1e-5};
    case Checked::AttentionWeights:
      return {1e-5, 1e-4};
    case Checked::AdditiveAttention:
      return {2e-5, 1e-4};
    case Checked::AttentionLayer:
      return {2e-5, 1e-4};
  }
  return {};
}

const char* toString(Checked what) noexcept {
  switch (what) {
    case Checked::Softmax:
      return "softmax";
    case Checked::LayerNorm:
      return "layer_norm";
    case Checked::RmsNorm:
      return "rms_norm";
    case Checked::Rope:
      return "rope";
    case Checked::Attention:
      return "attention";
    case Checked::AttentionLse:
      return "attention lse";
    case Checked::AttentionWeights:
      return "attention weights";
    case Checked::AdditiveAttention:
      return "additive attention";
    case Checked::AttentionLayer:
      return "attention layer";
    case Checked::Linear:
      return "linear";
    case Checked::Elementwise:
      return "elementwise";
  }
  return "?";
}

}  // namespace vkattn::reference
