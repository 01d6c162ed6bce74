// vkattn.MultiHeadAttention: the runtime's attention layer (the documents' MultiHeadAttention /
// GroupedQueryAttention classes) on NumPy arrays. The layer keeps its weights as host arrays and
// uploads them once per device (a session resource), so it stays valid across use_device().
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "session.hpp"
#include "vkattn/models/attention_layer.hpp"

namespace vkattn::python {
namespace {

py::array f32Array(const py::handle& value, const std::string& name) {
  py::array a = floatArray(value, name);
  if (dtypeOf(a) != DType::F32) throw py::type_error("'" + name + "' must be float32 or float64");
  return a;
}

std::optional<py::array> optionalArray(const py::object& value, const std::string& name) {
  if (value.is_none()) return std::nullopt;
  return f32Array(value, name);
}

class PyAttentionLayer {
 public:
  PyAttentionLayer(const py::object& q, const py::object& k, const py::object& v, const py::object& o,
                   int64_t numHeads, std::optional<int64_t> numKvHeads, const py::object& qBias,
                   const py::object& kBias, const py::object& vBias, const py::object& oBias, bool rope,
                   double ropeTheta)
      : m_q(f32Array(q, "q_weight")),
        m_k(f32Array(k, "k_weight")),
        m_v(f32Array(v, "v_weight")),
        m_o(f32Array(o, "o_weight")),
        m_qBias(optionalArray(qBias, "q_bias")),
        m_kBias(optionalArray(kBias, "k_bias")),
        m_vBias(optionalArray(vBias, "v_bias")),
        m_oBias(optionalArray(oBias, "o_bias")) {
    if (shapeOf(m_o).size() != 2) throw py::value_error("'o_weight' must be (d_model, num_heads * head_dim)");
    m_config.modelDim = shapeOf(m_o)[0];
    m_config.heads = numHeads;
    m_config.kvHeads = numKvHeads.value_or(numHeads);
    if (numHeads < 1) throw py::value_error("'num_heads' must be positive");
    if (shapeOf(m_q).size() != 2 || shapeOf(m_q)[0] % numHeads != 0)
      throw py::value_error("'q_weight' must be (num_heads * head_dim, d_model)");
    m_config.headDim = shapeOf(m_q)[0] / numHeads;
    if (rope) m_config.rope = RopeOptions{.theta = ropeTheta};
    layer(session());  // uploads now, so every shape is checked here rather than at the first call
  }
  ~PyAttentionLayer() { dropSessionResource(this); }
  PyAttentionLayer(const PyAttentionLayer&) = delete;
  PyAttentionLayer& operator=(const PyAttentionLayer&) = delete;

  py::object call(const py::object& x, const py::object& source, bool causal, bool needWeights) {
    Context& ctx = session();
    MultiHeadAttention& attention = layer(ctx);
    py::array xa = f32Array(x, "x");
    Tensor tx = toTensor(ctx, xa);
    std::optional<Tensor> ts;
    if (!source.is_none()) ts = toTensor(ctx, f32Array(source, "source"));
    Tensor weights;
    Tensor out = attention.forward(ctx, tx, ts ? ts->view() : tx.view(),
                               {.causal = causal, .weights = needWeights ? &weights : nullptr});
    py::array result = toArray(out);
    if (!needWeights) return result;
    py::array probs = toArray(weights);
    if (shapeOf(xa).size() == 2) probs = probs.attr("reshape")(py::make_tuple(weights.shape()[1], weights.shape()[2],
                                                                           weights.shape()[3]));
    return py::make_tuple(result, probs);
  }

  int64_t modelDim() const { return m_config.modelDim; }
  int64_t heads() const { return m_config.heads; }
  int64_t kvHeads() const { return m_config.kvHeads; }
  int64_t headDim() const { return m_config.headDim; }

 private:
  struct Uploaded : SessionResource {
    explicit Uploaded(MultiHeadAttention l) : layer(std::move(l)) {}
    MultiHeadAttention layer;
  };

  // The layer with its weights on the session's device, uploaded on first use there.
  MultiHeadAttention& layer(Context& ctx) {
    if (auto* uploaded = sessionResource(this)) return static_cast<Uploaded*>(uploaded)->layer;
    return static_cast<Uploaded&>(setSessionResource(this, std::make_unique<Uploaded>(build(ctx)))).layer;
  }

  MultiHeadAttention build(Context& ctx) const {
    auto upload = [&](const std::optional<py::array>& a) -> std::optional<Tensor> {
      if (!a) return std::nullopt;
      return toTensor(ctx, *a);
    };
    AttentionLayerWeights w{toTensor(ctx, m_q), toTensor(ctx, m_k), toTensor(ctx, m_v), toTensor(ctx, m_o),
                            upload(m_qBias),    upload(m_kBias),    upload(m_vBias),    upload(m_oBias)};
    return MultiHeadAttention(ctx, m_config, std::move(w));
  }

  py::array m_q, m_k, m_v, m_o;
  std::optional<py::array> m_qBias, m_kBias, m_vBias, m_oBias;
  AttentionLayerConfig m_config;
};

}  // namespace

void bindAttentionLayer(py::module_& m) {
  py::class_<PyAttentionLayer>(m, "MultiHeadAttention",
                               "Multi-head attention with q/k/v/o projections (torch.nn.Linear layout: weight is "
                               "(out, in)). num_kv_heads < num_heads gives grouped-query attention (1: multi-query). "
                               "Call with x (L, d) or (B, L, d); source defaults to x (self-attention).")
      .def(py::init<const py::object&, const py::object&, const py::object&, const py::object&, int64_t,
                    std::optional<int64_t>, const py::object&, const py::object&, const py::object&,
                    const py::object&, bool, double>(),
           py::arg("q_weight"), py::arg("k_weight"), py::arg("v_weight"), py::arg("o_weight"), py::kw_only(),
           py::arg("num_heads"), py::arg("num_kv_heads") = py::none(), py::arg("q_bias") = py::none(),
           py::arg("k_bias") = py::none(), py::arg("v_bias") = py::none(), py::arg("o_bias") = py::none(),
           py::arg("rope") = false, py::arg("rope_theta") = 10000.0)
      .def("__call__", &PyAttentionLayer::call, py::arg("x"), py::arg("source") = py::none(), py::kw_only(),
           py::arg("causal") = false, py::arg("need_weights") = false,
           "Returns the output, or (output, weights) with weights (B, H, L, S) when need_weights. causal: each "
           "query sees keys up to its own position (bottom-right aligned when source is longer).")
      .def_property_readonly("d_model", &PyAttentionLayer::modelDim)
      .def_property_readonly("num_heads", &PyAttentionLayer::heads)
      .def_property_readonly("num_kv_heads", &PyAttentionLayer::kvHeads)
      .def_property_readonly("head_dim", &PyAttentionLayer::headDim);
}

}  // namespace vkattn::python
