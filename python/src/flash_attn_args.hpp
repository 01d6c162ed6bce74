// What flash-attn's three functions share: the logit arguments (scale, causal, window, softcap,
// ALiBi, sinks) checked with the GIL held and put on the device, the q/k/v checks, and the
// [L, H, D] -> [1, H, L, D] view of one sequence's rows.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <utility>

#include "arrays.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn::python {

namespace py = pybind11;

// The options every entry point shares, checked with the GIL held.
struct LogitArgs {
  std::optional<float> scale;
  bool causal = false;
  std::optional<int64_t> windowLeft, windowRight;
  float softcap = 0.0f;
  std::optional<ArrayInput> alibi;  // [H] or [B, H]
  std::optional<ArrayInput> sinks;  // [H]
};

LogitArgs logitArgs(const py::object& dropout, const py::object& scale, bool causal, const py::object& window,
                    const py::object& softcap, const py::object& alibi, const py::object& sinks, int64_t batch,
                    int64_t heads, const SizeLimits& limits);

// LogitArgs' slopes and sinks on the device; options() gives sequence b's AttentionOptions
// (its row of [B, H] slopes) for `batch` sequences in one call (1 for one sequence).
struct DeviceLogitArgs {
  const LogitArgs& args;
  std::optional<DeviceInput> alibi, sinks;

  DeviceLogitArgs(Context& ctx, const LogitArgs& a);
  AttentionOptions options(std::optional<int64_t> sequence) const;
};

// A [L, H, D] view (rows of a packed or batched array) as the [1, H, L, D] view attention takes.
TensorView oneSequence(const TensorView& lhd);

// q, k or v of rank `rank` ([B, L, H, D] or packed [total, H, D]); k and v pass `as` = q's dtype
// and may be vkattn.Tensors stored in a K/V format.
// As flash-attn: q, k and v given as arrays have one dtype (a vkattn.Tensor may differ: k and v
// kept on the device may be stored in a K/V format). ValueError naming the one that differs.
void requireOneDtype(const py::object& q, const py::object& k, const py::object& v);

ArrayInput qkvInput(const py::object& value, const std::string& name, int64_t rank, const SizeLimits& limits,
                    std::optional<DType> as = std::nullopt);
void requireKv(const ArrayInput& q, const ArrayInput& k, const ArrayInput& v, bool batched);

// The K/V storage of a call: kv_dtype when given, else that of a vkattn.Tensor k (k_cache), else q's dtype.
DType kvStorage(const std::optional<DType>& kvDtype, const ArrayInput& q, const ArrayInput& k);

}  // namespace vkattn::python
