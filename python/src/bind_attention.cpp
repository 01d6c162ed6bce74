// scaled_dot_product_attention, attention_weights and additive_attention on NumPy arrays, with
// PyTorch's functional signatures: shapes (..., H, L, E), boolean masks keep where True, float
// masks are added.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>

#include "arrays.hpp"
#include "bindings.hpp"
#include "session.hpp"
#include "vkattn/ops/additive_attention.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn::python {
namespace {

// Views a shape (..., H, L, E) as [B, H, L, E], folding the leading dims into B; a rank-2 (L, E)
// is one head of one batch.
Shape asBhle(const Shape& s, const std::string& name) {
  if (s.size() < 2) throw py::value_error("'" + name + "' must have shape (..., L, E), got rank " + std::to_string(s.size()));
  if (s.size() == 2) return {1, 1, s[0], s[1]};
  int64_t batch = 1;
  for (std::size_t i = 0; i + 3 < s.size(); ++i) batch *= s[i];
  return {batch, s[s.size() - 3], s[s.size() - 2], s[s.size() - 1]};
}

struct Inputs {
  Tensor q, k, v;
  Shape qShape;  // the caller's shape of query
};

Inputs loadQkv(Context& ctx, const py::object& query, const py::object& key, const py::object& value, bool enableGqa) {
  py::array q = floatArray(query, "query"), k = floatArray(key, "key"), v = floatArray(value, "value");
  if (dtypeOf(k) != dtypeOf(q) || dtypeOf(v) != dtypeOf(q))
    throw py::type_error("'key' and 'value' must have query's dtype");
  // Check the shapes before uploading anything.
  if (shapeOf(q).size() != shapeOf(k).size() || shapeOf(q).size() != shapeOf(v).size())
    throw py::value_error("'key' and 'value' must have query's rank");
  const Shape qs = asBhle(shapeOf(q), "query"), ks = asBhle(shapeOf(k), "key");
  asBhle(shapeOf(v), "value");
  if (!enableGqa && ks[1] != qs[1])
    throw py::value_error("'key' has " + std::to_string(ks[1]) + " heads, query " + std::to_string(qs[1]) +
                          "; pass enable_gqa=True for grouped-query attention");
  return Inputs{toTensor(ctx, q), toTensor(ctx, k), toTensor(ctx, v), shapeOf(q)};
}

TensorView bhle(const Tensor& t, const std::string& name) {
  TensorView view = t.view();
  view.shape = asBhle(t.shape(), name);
  view.strides = contiguousStrides(view.shape);
  return view;
}

// Broadcasts a PyTorch-style mask (bool: keep; float: add) to rank 4 [B|1, H|1, Lq|1, Lk].
struct Mask {
  std::optional<Tensor> keep, bias;
};

Mask loadMask(Context& ctx, const py::object& mask, const Shape& q4) {
  Mask m;
  if (mask.is_none()) return m;
  py::array a = py::array::ensure(mask);
  if (!a) throw py::type_error("'attn_mask' must be a numpy array");
  Shape s = shapeOf(a);
  if (s.size() > 4 && q4[0] > 1) throw py::value_error("'attn_mask' of rank > 4 is not supported");
  while (s.size() < 4) s.insert(s.begin(), 1);
  if (a.dtype().kind() == 'b') {
    auto ints = py::array_t<int32_t, py::array::c_style | py::array::forcecast>::ensure(a.attr("astype")("int32"));
    m.keep = Tensor(ctx.device(), s, DType::I32);
    m.keep->uploadBytes(ints.data(), m.keep->bytes());
  } else if (a.dtype().kind() == 'f') {
    auto floats = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a);
    m.bias = ctx.tensor(s);
    m.bias->uploadBytes(floats.data(), m.bias->bytes());
  } else {
    throw py::type_error("'attn_mask' must be bool (True = take part) or float (added)");
  }
  return m;
}

py::array reshaped(const Tensor& t, const Shape& shape) {
  return toArray(t).attr("reshape")(py::tuple(py::cast(std::vector<py::ssize_t>(shape.begin(), shape.end()))));
}

}  // namespace

void bindAttention(py::module_& m) {
  m.def(
      "scaled_dot_product_attention",
      [](const py::object& query, const py::object& key, const py::object& value, const py::object& attnMask,
         bool isCausal, const std::optional<double>& scale, bool enableGqa, const std::optional<std::pair<int64_t, int64_t>>& window,
         bool returnLse) -> py::object {
        Context& ctx = session();
        Inputs in = loadQkv(ctx, query, key, value, enableGqa);
        TensorView q = bhle(in.q, "query"), k = bhle(in.k, "key"), v = bhle(in.v, "value");
        Mask mask = loadMask(ctx, attnMask, q.shape);
        AttentionOptions o{.causal = isCausal};
        if (scale) o.scale = static_cast<float>(*scale);
        if (window) {
          o.windowLeft = window->first;
          o.windowRight = window->second;
        }
        if (mask.keep) o.keepMask = mask.keep->view();
        if (mask.bias) o.bias = mask.bias->view();
        std::optional<Tensor> lse;
        if (returnLse) {
          lse = ctx.tensor({q.shape[0], q.shape[1], q.shape[2]});
          o.lse = lse->view();
        }
        Tensor out = attention(ctx, q, k, v, o);
        Shape outShape = in.qShape;
        outShape.back() = v.shape[3];
        py::array result = reshaped(out, outShape);
        if (!returnLse) return result;
        Shape lseShape(in.qShape.begin(), in.qShape.end() - 1);
        return py::make_tuple(result, reshaped(*lse, lseShape));
      },
      py::arg("query"), py::arg("key"), py::arg("value"), py::arg("attn_mask") = py::none(),
      py::arg("is_causal") = false, py::arg("scale") = py::none(), py::arg("enable_gqa") = false,
      py::arg("window") = py::none(), py::arg("return_lse") = false,
      "softmax(query key^T * scale + mask) value, fused (O(L) memory). Shapes (..., H, L, E) as in PyTorch; "
      "bool attn_mask keeps where True, float attn_mask is added; window=(left, right) limits keys around the "
      "diagonal; rows with every key masked give zeros. With return_lse, also the log-sum-exp (..., H, L).");
  m.def(
      "attention_weights",
      [](const py::object& query, const py::object& key, const std::optional<std::vector<int64_t>>& heads,
         const py::object& attnMask, bool isCausal, const std::optional<double>& scale) {
        Context& ctx = session();
        py::array qa = floatArray(query, "query"), ka = floatArray(key, "key");
        Tensor tq = toTensor(ctx, qa), tk = toTensor(ctx, ka);
        TensorView q = bhle(tq, "query"), k = bhle(tk, "key");
        if (q.shape[1] % k.shape[1] != 0)
          throw py::value_error("'key' heads must divide query heads");
        Mask mask = loadMask(ctx, attnMask, q.shape);
        AttentionOptions o{.causal = isCausal};
        if (scale) o.scale = static_cast<float>(*scale);
        if (mask.keep) o.keepMask = mask.keep->view();
        if (mask.bias) o.bias = mask.bias->view();
        return toArray(attentionWeights(ctx, q, k, heads.value_or(std::vector<int64_t>{}), o));
      },
      py::arg("query"), py::arg("key"), py::arg("heads") = py::none(), py::arg("attn_mask") = py::none(),
      py::arg("is_causal") = false, py::arg("scale") = py::none(),
      "Attention probabilities (B, len(heads), Lq, Lk) for the chosen query heads (all by default).");
  m.def(
      "additive_attention",
      [](const py::object& query, const py::object& key, const py::object& value, const py::object& wQ,
         const py::object& wK, const py::object& v, const py::object& attnMask) {
        Context& ctx = session();
        auto f32 = [&](const py::object& x, const std::string& name) {
          py::array a = floatArray(x, name);
          if (dtypeOf(a) != DType::F32) a = py::array(a.attr("astype")("float32"));
          return toTensor(ctx, a);
        };
        Tensor q = f32(query, "query"), k = f32(key, "key"), val = f32(value, "value"), wq = f32(wQ, "w_q"),
               wk = f32(wK, "w_k"), vv = f32(v, "v");
        AdditiveAttentionOptions o;
        std::optional<Tensor> keep, bias;
        if (!attnMask.is_none()) {
          Mask mask = loadMask(ctx, attnMask, {1, 1, 1, 1});
          auto drop = [](Tensor& t) {  // rank 4 [1, B|1, Lq|1, Lk] -> rank 3
            TensorView view = t.view();
            view.shape.erase(view.shape.begin());
            view.strides = contiguousStrides(view.shape);
            return view;
          };
          if (mask.keep) {
            keep = std::move(mask.keep);
            o.keepMask = drop(*keep);
          }
          if (mask.bias) {
            bias = std::move(mask.bias);
            o.bias = drop(*bias);
          }
        }
        return toArray(additiveAttention(ctx, q, k, val, wq, wk, vv, o));
      },
      py::arg("query"), py::arg("key"), py::arg("value"), py::arg("w_q"), py::arg("w_k"), py::arg("v"),
      py::arg("attn_mask") = py::none(),
      "Bahdanau attention: softmax_j(v^T tanh(W_q q_i + W_k k_j) + mask) value_j for query (B, Lq, Dq), key "
      "(B, Lk, Dk), value (B, Lk, Dv), w_q (A, Dq), w_k (A, Dk), v (A,).");
}

}  // namespace vkattn::python
