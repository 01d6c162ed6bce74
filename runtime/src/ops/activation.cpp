#include "vkattn/ops/activation.hpp"

#include "vkattn/core/error.hpp"

namespace vkattn {

const char* toString(Activation activation) noexcept {
  switch (activation) {
    case Activation::None:
      return "none";
    case Activation::Relu:
      return "relu";
    case Activation::Gelu:
      return "gelu";
    case Activation::GeluTanh:
      return "gelu_tanh";
    case Activation::Silu:
      return "silu";
  }
  return "?";
}

Activation activationFromString(const std::string& name) {
  for (Activation a : {Activation::None, Activation::Relu, Activation::Gelu, Activation::GeluTanh, Activation::Silu})
    if (name == toString(a)) return a;
  throw InvalidArgument("activation", "'" + name + "', expected none, relu, gelu, gelu_tanh or silu");
}

}  // namespace vkattn
