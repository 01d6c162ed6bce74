// vkattn.MultiHeadAttention: the runtime's attention layer (the documents' MultiHeadAttention /
// GroupedQueryAttention classes) on NumPy arrays or vkattn.Tensors. The layer keeps its weights as
// host arrays (a vkattn.Tensor weight is read back once) and uploads them once per device (a
// session resource), so it stays valid across use_device().
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <limits>
#include <mutex>
#include <utility>

#include "argument_names.hpp"
#include "arrays.hpp"
#include "bindings.hpp"
#include "session.hpp"
#include "vkattn/models/attention_layer.hpp"

namespace vkattn::python {
namespace {

constexpr int64_t kMaxHeads = std::numeric_limits<int32_t>::max();

std::optional<ArrayInput> optionalInput(const py::object& value, const std::string& name, const SizeLimits& limits) {
  if (value.is_none()) return std::nullopt;
  return floatInput(value, name, limits, DType::F32);
}

// A weight or bias, held on the host for the layer's lifetime.
ArrayInput weightInput(const py::object& value, const std::string& name, const SizeLimits& limits) {
  return floatInput(hostValue(value), name, limits, DType::F32);
}

std::optional<ArrayInput> optionalWeight(const py::object& value, const std::string& name, const SizeLimits& limits) {
  if (value.is_none()) return std::nullopt;
  return weightInput(value, name, limits);
}

class PyAttentionLayer {
 public:
  PyAttentionLayer(const py::object& q, const py::object& k, const py::object& v, const py::object& o,
                   const py::object& numHeads, const py::object& numKvHeads, const py::object& qBias,
                   const py::object& kBias, const py::object& vBias, const py::object& oBias, bool rope,
                   const py::object& ropeTheta)
      : m_limits(sizeLimits()),
        m_q(weightInput(q, "q_weight", m_limits)),
        m_k(weightInput(k, "k_weight", m_limits)),
        m_v(weightInput(v, "v_weight", m_limits)),
        m_o(weightInput(o, "o_weight", m_limits)),
        m_qBias(optionalWeight(qBias, "q_bias", m_limits)),
        m_kBias(optionalWeight(kBias, "k_bias", m_limits)),
        m_vBias(optionalWeight(vBias, "v_bias", m_limits)),
        m_oBias(optionalWeight(oBias, "o_bias", m_limits)) {
    if (m_o.shape.size() != 2) throw py::value_error("'o_weight' must be (d_model, num_heads * head_dim)");
    m_config.modelDim = m_o.shape[0];
    m_config.heads = intArgument(numHeads, "num_heads", 1, kMaxHeads);
    m_config.kvHeads = numKvHeads.is_none() ? m_config.heads : intArgument(numKvHeads, "num_kv_heads", 1, kMaxHeads);
    if (m_q.shape.size() != 2 || m_q.shape[0] % m_config.heads != 0)
      throw py::value_error("'q_weight' must be (num_heads * head_dim, d_model)");
    m_config.headDim = m_q.shape[0] / m_config.heads;
    if (rope) m_config.rope = RopeOptions{.theta = finiteArgument(ropeTheta, "rope_theta")};
    // Uploads now, so every shape is checked here rather than at the first call; the runtime's
    // complaints name the arguments as this constructor's caller wrote them.
    withPythonNames({{"q", "q_weight"},
                     {"k", "k_weight"},
                     {"v", "v_weight"},
                     {"o", "o_weight"},
                     {"qBias", "q_bias"},
                     {"kBias", "k_bias"},
                     {"vBias", "v_bias"},
                     {"oBias", "o_bias"},
                     {"heads", "num_heads"},
                     {"kvHeads", "num_kv_heads"},
                     {"modelDim", "o_weight"}},
                    [&] { return onDevice([&](Context& ctx) { return &layer(ctx); }); });
  }
  ~PyAttentionLayer() {
    // With the GIL held: safe, since no thread waits for the GIL while it holds the session.
    std::lock_guard<std::mutex> lock(sessionMutex());
    dropSessionResource(this);
  }
  PyAttentionLayer(const PyAttentionLayer&) = delete;
  PyAttentionLayer& operator=(const PyAttentionLayer&) = delete;

  py::object call(const py::object& x, const py::object& source, bool causal, bool needWeights) {
    const bool keep = isDeviceTensor(x);
    const ArrayInput hx = floatInput(x, "x", m_limits, DType::F32);
    const std::optional<ArrayInput> hs = optionalInput(source, "source", m_limits);
    auto [out, weights] = onDevice([&](Context& ctx) {
      MultiHeadAttention& attention = layer(ctx);
      const DeviceInput tx = upload(ctx, hx);
      std::optional<DeviceInput> ts;
      if (hs) ts = upload(ctx, *hs);
      Tensor w;
      Tensor o = attention.forward(ctx, tx, ts ? ts->view() : tx.view(),
                                   {.causal = causal, .weights = needWeights ? &w : nullptr});
      std::optional<Result> probs;
      if (needWeights) {
        Shape shape = w.shape();
        if (hx.shape.size() == 2) shape.erase(shape.begin());  // (L, d) input: no batch dimension
        probs = finish(std::move(w), keep, shape);
      }
      return std::pair{finish(std::move(o), keep), std::move(probs)};
    });
    if (!needWeights) return toPython(std::move(out));
    return py::make_tuple(toPython(std::move(out)), toPython(std::move(*weights)));
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

  // The layer with its weights on the session's device, uploaded on first use there. Runs
  // inside onDevice.
  MultiHeadAttention& layer(Context& ctx) {
    if (auto* uploaded = sessionResource(this)) return static_cast<Uploaded*>(uploaded)->layer;
    return static_cast<Uploaded&>(setSessionResource(this, std::make_unique<Uploaded>(build(ctx)))).layer;
  }

  MultiHeadAttention build(Context& ctx) const {
    auto optional = [&](const std::optional<ArrayInput>& a) -> std::optional<Tensor> {
      if (!a) return std::nullopt;
      return newTensor(ctx, *a, a->dtype);
    };
    auto tensor = [&](const ArrayInput& a) { return newTensor(ctx, a, a.dtype); };
    AttentionLayerWeights w{tensor(m_q),       tensor(m_k),       tensor(m_v),       tensor(m_o),
                            optional(m_qBias), optional(m_kBias), optional(m_vBias), optional(m_oBias)};
    return MultiHeadAttention(ctx, m_config, std::move(w));
  }

  SizeLimits m_limits;  // of the device current at construction; the ops check the current one again
  ArrayInput m_q, m_k, m_v, m_o;
  std::optional<ArrayInput> m_qBias, m_kBias, m_vBias, m_oBias;
  AttentionLayerConfig m_config;
};

}  // namespace

void bindAttentionLayer(py::module_& m) {
  py::class_<PyAttentionLayer>(m, "MultiHeadAttention",
                               "Multi-head attention with q/k/v/o projections (torch.nn.Linear layout: weight is "
                               "(out, in)). num_kv_heads < num_heads gives grouped-query attention (1: multi-query). "
                               "Call with x (L, d) or (B, L, d); source defaults to x (self-attention).")
      .def(py::init<const py::object&, const py::object&, const py::object&, const py::object&, const py::object&,
                    const py::object&, const py::object&, const py::object&, const py::object&, const py::object&, bool,
                    const py::object&>(),
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
