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
      return opRow(toString(what)).toleranceFor(half ? DType::F16 : DType::F32);
    case Checked::Attention:
      // f16: P is rounded to half before the P V product, as in FlashAttention.
      return half ? Tolerance{2e-3, 5e-3} : Tolerance{2e-5, 1e-4};
    case Checked::AttentionLse:
      return {2e-5, 1e-5};
    case Checked::AttentionWeights:
      return {1e-5, 1e-4};
    case Checked::AdditiveAttention:
      return {2e-5, 1e-4};
    case Checked::AttentionLayer:
      return {2e-5, 1e-4};
    case Checked::Linear:
      // The bound grows with each output's sum of |products|: accumulation order differs.
      return half ? Tolerance{1e-3, 1e-3, 2e-7} : Tolerance{1e-5, 1e-5, 2e-7};
    case Checked::Elementwise:
      return half ? Tolerance{1e-3, 1e-3} : Tolerance{1e-6, 1e-5};
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
