// The activations a dense layer fuses and the elementwise op applies (one enum, its names).
#pragma once

#include <string>

namespace vkattn {

enum class Activation {
  None,
  Relu,
  Gelu,      // exact: 0.5 v (1 + erf(v / sqrt 2)) (torch's default)
  GeluTanh,  // 0.5 v (1 + tanh(sqrt(2 / pi) (v + 0.044715 v^3))) (approximate="tanh")
  Silu,      // v / (1 + exp(-v))
};

const char* toString(Activation activation) noexcept;
// "none", "relu", "gelu", "gelu_tanh", "silu"; throws InvalidArgument("activation") otherwise.
Activation activationFromString(const std::string& name);

}  // namespace vkattn
