// The whole public API of the vkattn runtime.
#pragma once

#include "vkattn/additive_attention.hpp"
#include "vkattn/attention.hpp"
#include "vkattn/context.hpp"
#include "vkattn/device_info.hpp"
#include "vkattn/device_selection.hpp"
#include "vkattn/elementwise.hpp"
#include "vkattn/embedding.hpp"
#include "vkattn/error.hpp"
#include "vkattn/half.hpp"
#include "vkattn/linear.hpp"
#include "vkattn/rope.hpp"
#include "vkattn/row_ops.hpp"
#include "vkattn/safetensors.hpp"
#include "vkattn/tensor.hpp"
#include "vkattn/timing.hpp"
