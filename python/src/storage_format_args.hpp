// The kv_dtype argument of the flash-attn functions: None (k and v keep q's dtype) or a K/V
// storage format, 'bf16', 'q8_0' or 'q4_0'; ValueError naming it otherwise, or when a block
// format's 32-element blocks do not divide the head dims.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>

#include "vkattn/core/tensor.hpp"

namespace vkattn::python {

std::optional<DType> kvDtypeArgument(const pybind11::object& value, int64_t dk, int64_t dv);

}  // namespace vkattn::python
