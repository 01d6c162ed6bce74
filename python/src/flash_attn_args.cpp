#include "flash_attn_args.hpp"

#include "session.hpp"

namespace vkattn::python {

LogitArgs logitArgs(const py::object& dropout, const py::object& scale, bool causal, const py::object& window,
                    const py::object& softcap, const py::object& alibi, const py::object& sinks, int64_t batch,
                    int64_t heads, const SizeLimits& limits) {
  LogitArgs a;
  if (!dropout.is_none() && finiteArgument(dropout, "dropout_p") != 0.0)
    throw py::value_error("'dropout_p' must be 0: vkattn runs attention for inference only");
  if (!scale.is_none()) a.scale = static_cast<float>(finiteArgument(scale, "softmax_scale"));
  a.causal = causal;
  const auto [left, right] = pairArgument(window, "window_size", "(left, right), -1 for unbounded", -1);
  if (left >= 0) a.windowLeft = left;
  if (right >= 0) a.windowRight = right;
  const double cap = finiteArgument(softcap, "softcap");
  if (cap < 0.0) throw py::value_error("'softcap' must be >= 0 (0 turns it off)");
  a.softcap = static_cast<float>(cap);
  if (!alibi.is_none()) {
    a.alibi = floatInput(alibi, "alibi_slopes", limits, DType::F32);
    const Shape& s = a.alibi->shape;
    if (!(s == Shape{heads}) && !(s == Shape{batch, heads}))
      throw py::value_error("'alibi_slopes' must have shape (" + std::to_string(heads) + ",) or (" +
                            std::to_string(batch) + ", " + std::to_string(heads) + "), got " + toString(s));
  }
  if (!sinks.is_none()) {
    a.sinks = floatInput(sinks, "sinks", limits, DType::F32);
    if (!(a.sinks->shape == Shape{heads}))
      throw py::value_error("'sinks' must have shape (" + std::to_string(heads) + ",), got " +
                            toString(a.sinks->shape));
  }
  return a;
}

DeviceLogitArgs::DeviceLogitArgs(Context& ctx, const LogitArgs& a) : args(a) {
  if (a.alibi) alibi = upload(ctx, *a.alibi);
  if (a.sinks) sinks = upload(ctx, *a.sinks);
}

AttentionOptions DeviceLogitArgs::options(std::optional<int64_t> sequence) const {
  AttentionOptions o;
  o.scale = args.scale;
  o.causal = args.causal;
  o.alignment = MaskAlignment::BottomRight;
  o.windowLeft = args.windowLeft;
  o.windowRight = args.windowRight;
  o.softcap = args.softcap;
  if (sinks) o.sinks = sinks->view();
  if (alibi) {
    TensorView slopes = alibi->view();
    if (slopes.rank() == 2 && sequence) slopes = slopes.sliced(0, *sequence, 1).reshaped({slopes.dim(1)});
    o.alibiSlopes = slopes;
  }
  return o;
}

// A [L, H, D] view (rows of a packed or batched array) as the [1, H, L, D] view attention takes.
TensorView oneSequence(const TensorView& lhd) {
  TensorView v = lhd;
  v.shape = {1, lhd.dim(1), lhd.dim(0), lhd.dim(2)};
  v.strides = {lhd.dim(0) * lhd.strides[0], lhd.strides[1], lhd.strides[0], 1};
  return v;
}

void requireOneDtype(const py::object& q, const py::object& k, const py::object& v) {
  if (isDeviceTensor(q)) return;
  const std::string qType = arrivingDtype(q);
  for (const auto& [name, value] : {std::pair{"k", &k}, std::pair{"v", &v}}) {
    if (isDeviceTensor(*value)) continue;
    if (const std::string t = arrivingDtype(*value); t != qType)
      throw py::value_error("'" + std::string(name) + "' is " + t + " but 'q' is " + qType +
                            "; q, k and v must have one dtype");
  }
}

ArrayInput qkvInput(const py::object& value, const std::string& name, int64_t rank, const SizeLimits& limits,
                    std::optional<DType> as) {
  ArrayInput a = floatInput(value, name, limits, as, name == "q" ? Stored::Float : Stored::FloatOrKvFormat);
  if (!a.resident) checkFinite(a.array, name);
  if (static_cast<int64_t>(a.shape.size()) != rank)
    throw py::value_error("'" + name + "' must have rank " + std::to_string(rank) + " (" +
                          (rank == 4 ? "batch, seqlen, heads, headdim" : "total, heads, headdim") + "), got shape " +
                          toString(a.shape));
  return a;
}

void requireKv(const ArrayInput& q, const ArrayInput& k, const ArrayInput& v, bool batched) {
  const std::size_t r = q.shape.size();
  if (k.shape[r - 1] != q.shape[r - 1])
    throw py::value_error("'k' head dim " + std::to_string(k.shape[r - 1]) + " differs from q's " +
                          std::to_string(q.shape[r - 1]));
  for (std::size_t i = 0; i + 1 < r; ++i)
    if (v.shape[i] != k.shape[i])
      throw py::value_error("'v' shape " + toString(v.shape) + " does not match k's " + toString(k.shape));
  if (batched && k.shape[0] != q.shape[0]) throw py::value_error("'k' batch differs from q's");
  if (q.shape[r - 2] % k.shape[r - 2] != 0)
    throw py::value_error("'k' has " + std::to_string(k.shape[r - 2]) + " heads, which do not divide q's " +
                          std::to_string(q.shape[r - 2]));
}

DType kvStorage(const std::optional<DType>& kvDtype, const ArrayInput& q, const ArrayInput& k) {
  if (kvDtype) return *kvDtype;
  return k.resident ? k.dtype : q.dtype;
}

}  // namespace vkattn::python
