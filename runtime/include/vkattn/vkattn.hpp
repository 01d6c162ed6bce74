// The whole public API of the vkattn runtime: the Vulkan core and the ops. The models
// (vkattn/models/), file I/O (vkattn/io/) and the references (vkattn/reference/) are separate
// libraries with their own headers.
#pragma once

#include "vkattn/core/checked_size.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/device_info.hpp"
#include "vkattn/core/device_selection.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/half.hpp"
#include "vkattn/core/replay.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/core/tensor.hpp"
#include "vkattn/core/timing.hpp"
#include "vkattn/core/tolerance.hpp"
#include "vkattn/core/vulkan_error.hpp"
#include "vkattn/ops/additive_attention.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/ops/attention_map.hpp"
#include "vkattn/ops/elementwise.hpp"
#include "vkattn/ops/embedding.hpp"
#include "vkattn/ops/kv_cache_attention.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/ops/linear_steps.hpp"
#include "vkattn/ops/op_row.hpp"
#include "vkattn/ops/rope.hpp"
#include "vkattn/ops/row_ops.hpp"
