// scaled_dot_product_attention, attention_weights and additive_attention on NumPy arrays, with
// PyTorch's functional signatures: shapes (..., H, L, E), boolean masks keep where True, float
// masks are added.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "argument_names.hpp"
#include "arrays.hpp"
#include "bindings.hpp"
#include "session.hpp"
#include "vkattn/ops/additive_attention.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn::python {
namespace {

// Views a shape (..., H, L, E) as [B, H, L, E], folding the leading dims into B; a rank-2 (L, E)
// is one head of one batch. The product cannot overflow: checkArraySize bounded every input.
Shape asBhle(const Shape& s, const std::string& name) {
  if (s.size() < 2)
    throw py::value_error("'" + name + "' must have shape (..., L, E), got rank " + std::to_string(s.size()));
  if (s.size() == 2) return {1, 1, s[0], s[1]};
  int64_t batch = 1;
  for (std::size_t i = 0; i + 3 < s.size(); ++i) batch *= s[i];
  return {batch, s[s.size() - 3], s[s.size() - 2], s[s.size() - 1]};
}

TensorView bhle(const TensorView& t) {
  return t.reshaped(asBhle(t.shape, "tensor"));
}

struct Inputs {
  ArrayInput q, k, v;
};

Inputs qkvInputs(const py::object& query, const py::object& key, const py::object& value, bool enableGqa,
                 const SizeLimits& limits) {
  // As PyTorch: one dtype for the three, not a silent conversion of two of them.
  const std::string qType = arrivingDtype(query);
  for (const auto& [name, input] : {std::pair{"key", &key}, std::pair{"value", &value}})
    if (const std::string t = arrivingDtype(*input); t != qType)
      throw py::value_error("'" + std::string(name) + "' is " + t + " but 'query' is " + qType +
                            "; query, key and value must have one dtype");
  ArrayInput q = floatInput(query, "query", limits);
  Inputs in{q, floatInput(key, "key", limits, q.dtype), floatInput(value, "value", limits, q.dtype)};
  if (in.k.shape.size() != q.shape.size() || in.v.shape.size() != q.shape.size())
    throw py::value_error("'key' and 'value' must have query's rank");
  const Shape qs = asBhle(q.shape, "query"), ks = asBhle(in.k.shape, "key");
  asBhle(in.v.shape, "value");
  if (!enableGqa && ks[1] != qs[1])
    throw py::value_error("'key' has " + std::to_string(ks[1]) + " heads, query " + std::to_string(qs[1]) +
                          "; pass enable_gqa=True for grouped-query attention");
  for (const ArrayInput* a : {&in.q, &in.k, &in.v})
    if (!a->resident) checkFinite(a->array, a->name);
  return in;
}

// Runs `work`; when the kernel reports a NaN, finds where it came from: a non-finite value in an
// input kept on the device (host inputs were checked before the run) is named with its index,
// else the NaN arose from finite inputs and is reported as such.
template <class Work>
auto withNonFiniteLocated(const Inputs& in, Work&& work) {
  try {
    return work();
  } catch (const InvalidArgument& e) {
    if (e.problem().find("NaN") == std::string::npos) throw;
    for (const ArrayInput* a : {&in.q, &in.k, &in.v})
      if (a->resident) checkFinite(hostValue(a->owner), a->name);
    throw py::value_error("the attention became NaN from finite query, key and value (" + e.problem() + ")");
  }
}

// The runtime's names for this function's arguments, as its errors give them.
const ArgumentNames kSdpaNames = {{"q", "query"},
                                  {"k", "key"},
                                  {"v", "value"},
                                  {"keepMask", "attn_mask"},
                                  {"bias", "attn_mask"},
                                  {"windowLeft", "window"},
                                  {"windowRight", "window"},
                                  {"alibiSlopes", "alibi_slopes"},
                                  {"lse", "return_lse"}};

// A PyTorch-style mask (bool: keep; float: add) as a rank-4 host array [B|1, H|1, Lq|1, Lk].
struct MaskInput {
  std::optional<ArrayInput> keep, bias;
};

MaskInput maskInput(const py::object& mask, const SizeLimits& limits, int64_t batch) {
  MaskInput m;
  if (mask.is_none()) return m;
  py::array a = py::module_::import("numpy").attr("asarray")(hostValue(mask));
  if (a.ndim() > 4 && batch > 1) throw py::value_error("'attn_mask' of rank > 4 is not supported");
  ArrayInput h;
  if (a.dtype().kind() == 'b') {
    checkArraySize(a, dtypeSize(DType::I32), "attn_mask", limits);
    h = hostArray(py::module_::import("numpy").attr("ascontiguousarray")(a, py::arg("dtype") = "int32"), DType::I32);
  } else if (a.dtype().kind() == 'f') {
    h = floatInput(a, "attn_mask", limits, DType::F32);
  } else {
    throw py::type_error("'attn_mask' must be bool (True = take part) or float (added), got dtype " +
                         std::string(py::str(a.dtype())));
  }
  while (h.shape.size() < 4) h.shape.insert(h.shape.begin(), 1);
  (h.dtype == DType::I32 ? m.keep : m.bias) = std::move(h);
  return m;
}

struct MaskTensors {
  std::optional<DeviceInput> keep, bias;
};

MaskTensors uploadMask(Context& ctx, const MaskInput& mask, AttentionOptions& o) {
  MaskTensors t;
  if (mask.keep) o.keepMask = (t.keep = upload(ctx, *mask.keep))->view();
  if (mask.bias) o.bias = (t.bias = upload(ctx, *mask.bias))->view();
  return t;
}

// An optional per-head float vector: (H,), or (B, H) when `batch` is given.
std::optional<ArrayInput> headVector(const py::object& value, const std::string& name, const SizeLimits& limits,
                                     std::optional<int64_t> batch, int64_t heads) {
  if (value.is_none()) return std::nullopt;
  ArrayInput a = floatInput(value, name, limits, DType::F32);
  if (!(a.shape == Shape{heads}) && !(batch && a.shape == Shape{*batch, heads}))
    throw py::value_error("'" + name + "' must have shape (" + std::to_string(heads) + ",)" +
                          (batch ? " or (" + std::to_string(*batch) + ", " + std::to_string(heads) + ")" : "") +
                          ", got " + toString(a.shape));
  return a;
}

std::optional<float> scaleArgument(const py::object& scale) {
  if (scale.is_none()) return std::nullopt;
  return static_cast<float>(finiteArgument(scale, "scale"));
}

}  // namespace

void bindAttention(py::module_& m) {
  m.def(
      "scaled_dot_product_attention",
      [](const py::object& query, const py::object& key, const py::object& value, const py::object& attnMask,
         const py::object& dropoutP, bool isCausal, const py::object& scale, bool enableGqa, const py::object& window,
         bool returnLse, const py::object& softcap, const py::object& alibiSlopes,
         const py::object& sinks) -> py::object {
        return withPythonNames(kSdpaNames, [&]() -> py::object {
          const SizeLimits limits = sizeLimits();
          const bool keep = isDeviceTensor(query);
          if (finiteArgument(dropoutP, "dropout_p") != 0.0)
            throw py::value_error("'dropout_p' must be 0: attention here is inference, without dropout");
          if (isCausal && !attnMask.is_none())
            throw py::value_error(
                "'attn_mask' and is_causal=True together: pass one (a causal mask can be part of "
                "attn_mask), as PyTorch requires");
          const Inputs in = qkvInputs(query, key, value, enableGqa, limits);
          const Shape q4 = asBhle(in.q.shape, "query");
          const MaskInput mask = maskInput(attnMask, limits, q4[0]);
          AttentionOptions o{.causal = isCausal};
          o.scale = scaleArgument(scale);
          o.softcap = static_cast<float>(finiteArgument(softcap, "softcap"));
          const std::optional<ArrayInput> alibi = headVector(alibiSlopes, "alibi_slopes", limits, q4[0], q4[1]);
          const std::optional<ArrayInput> sinkLogits = headVector(sinks, "sinks", limits, std::nullopt, q4[1]);
          if (!window.is_none())
            std::tie(o.windowLeft, o.windowRight) = pairArgument(window, "window", "(left, right)", 0);
          Shape outShape = in.q.shape;
          outShape.back() = in.v.shape.back();
          const Shape lseShape(in.q.shape.begin(), in.q.shape.end() - 1);
          auto [out, lse] = withNonFiniteLocated(in, [&] {
            return onDevice([&](Context& ctx) {
              const DeviceInput q = upload(ctx, in.q), k = upload(ctx, in.k), v = upload(ctx, in.v);
              const MaskTensors masks = uploadMask(ctx, mask, o);
              std::optional<DeviceInput> alibiT, sinksT;
              if (alibi) o.alibiSlopes = (alibiT = upload(ctx, *alibi))->view();
              if (sinkLogits) o.sinks = (sinksT = upload(ctx, *sinkLogits))->view();
              const TensorView q4 = bhle(q);
              std::optional<Tensor> lse;
              if (returnLse) o.lse = (lse = ctx.tensor({q4.shape[0], q4.shape[1], q4.shape[2]}))->view();
              Result result = finish(attention(ctx, q4, bhle(k), bhle(v), o), keep, outShape);
              return std::pair{std::move(result),
                               lse ? std::optional(finish(std::move(*lse), keep, lseShape)) : std::nullopt};
            });
          });
          if (!returnLse) return toPython(std::move(out));
          return py::make_tuple(toPython(std::move(out)), toPython(std::move(*lse)));
        });
      },
      py::arg("query"), py::arg("key"), py::arg("value"), py::arg("attn_mask") = py::none(), py::arg("dropout_p") = 0.0,
      py::arg("is_causal") = false, py::arg("scale") = py::none(), py::arg("enable_gqa") = false,
      py::arg("window") = py::none(), py::arg("return_lse") = false, py::arg("softcap") = 0.0,
      py::arg("alibi_slopes") = py::none(), py::arg("sinks") = py::none(),
      "softmax(query key^T * scale + mask) value, fused (O(L) memory). Shapes (..., H, L, E) and the leading "
      "arguments as in PyTorch (dropout_p must be 0); "
      "bool attn_mask keeps where True, float attn_mask is added; window=(left, right) limits keys around the "
      "diagonal; rows with every key masked give zeros. With return_lse, also the log-sum-exp (..., H, L). "
      "softcap > 0 caps the scaled logits (c * tanh(s / c)); alibi_slopes (H,) or (B, H) add "
      "-slope * |i + Lk - Lq - j|; sinks (H,) join each row's softmax denominator.");
  m.def(
      "attention_weights",
      [](const py::object& query, const py::object& key, const py::object& headsValue, const py::object& attnMask,
         bool isCausal, const py::object& scale) {
        const SizeLimits limits = sizeLimits();
        const bool keep = isDeviceTensor(query);
        const ArrayInput q = floatInput(query, "query", limits);
        const ArrayInput k = floatInput(key, "key", limits, q.dtype);
        for (const ArrayInput* a : {&q, &k})
          if (!a->resident) checkFinite(a->array, a->name);
        const Shape q4 = asBhle(q.shape, "query"), k4 = asBhle(k.shape, "key");
        if (q4[1] % k4[1] != 0) throw py::value_error("'key' heads must divide query heads");
        std::vector<int64_t> heads;
        if (!headsValue.is_none()) {
          if (!py::isinstance<py::tuple>(headsValue) && !py::isinstance<py::list>(headsValue))
            throw py::type_error("'heads' must be a list of head indices, got " +
                                 std::string(py::str(headsValue.get_type().attr("__name__"))));
          for (const py::handle h : py::reinterpret_borrow<py::sequence>(headsValue))
            heads.push_back(intArgument(h, "heads", 0, q4[1] - 1));
        }
        const MaskInput mask = maskInput(attnMask, limits, q4[0]);
        AttentionOptions o{.causal = isCausal};
        o.scale = scaleArgument(scale);
        return toPython(onDevice([&](Context& ctx) {
          const DeviceInput tq = upload(ctx, q), tk = upload(ctx, k);
          const MaskTensors masks = uploadMask(ctx, mask, o);
          return finish(attentionWeights(ctx, bhle(tq), bhle(tk), heads, o), keep);
        }));
      },
      py::arg("query"), py::arg("key"), py::arg("heads") = py::none(), py::arg("attn_mask") = py::none(),
      py::arg("is_causal") = false, py::arg("scale") = py::none(),
      "Attention probabilities (B, len(heads), Lq, Lk) for the chosen query heads (all by default).");
  m.def(
      "additive_attention",
      [](const py::object& query, const py::object& key, const py::object& value, const py::object& wQ,
         const py::object& wK, const py::object& v, const py::object& attnMask) {
        const SizeLimits limits = sizeLimits();
        const bool keep = isDeviceTensor(query);
        const ArrayInput q = floatInput(query, "query", limits, DType::F32),
                         k = floatInput(key, "key", limits, DType::F32),
                         val = floatInput(value, "value", limits, DType::F32),
                         wq = floatInput(wQ, "w_q", limits, DType::F32), wk = floatInput(wK, "w_k", limits, DType::F32),
                         vv = floatInput(v, "v", limits, DType::F32);
        const MaskInput mask = maskInput(attnMask, limits, 1);
        return toPython(onDevice([&](Context& ctx) {
          AdditiveAttentionOptions o;
          AttentionOptions rank4;  // the masks as uploaded: [1, B|1, Lq|1, Lk]
          const MaskTensors masks = uploadMask(ctx, mask, rank4);
          auto drop = [](const TensorView& view) {
            return view.reshaped(Shape(view.shape.begin() + 1, view.shape.end()));
          };
          if (rank4.keepMask) o.keepMask = drop(*rank4.keepMask);
          if (rank4.bias) o.bias = drop(*rank4.bias);
          return finish(additiveAttention(ctx, upload(ctx, q), upload(ctx, k), upload(ctx, val), upload(ctx, wq),
                                          upload(ctx, wk), upload(ctx, vv), o),
                        keep);
        }));
      },
      py::arg("query"), py::arg("key"), py::arg("value"), py::arg("w_q"), py::arg("w_k"), py::arg("v"),
      py::arg("attn_mask") = py::none(),
      "Bahdanau attention: softmax_j(v^T tanh(W_q q_i + W_k k_j) + mask) value_j for query (B, Lq, Dq), key "
      "(B, Lk, Dk), value (B, Lk, Dv), w_q (A, Dq), w_k (A, Dk), v (A,).");
}

}  // namespace vkattn::python
