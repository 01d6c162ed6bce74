// The names of the K/V storage formats in Python arguments ('bf16' or 'bfloat16', 'q8_0', 'q4_0'),
// and the kv_dtype argument of the flash-attn functions.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>

#include "vkattn/core/tensor.hpp"

namespace vkattn::python {

// The K/V storage format a Python string names, or nothing when `value` is not one.
std::optional<DType> kvFormatNamed(const pybind11::object& value);

// kv_dtype: None (k and v keep q's dtype) or a K/V storage format; ValueError naming it otherwise,
// or when a block format's 32-element blocks do not divide the head dims.
std::optional<DType> kvDtypeArgument(const pybind11::object& value, int64_t dk, int64_t dv);

}  // namespace vkattn::python
