// vkattn.Model: a LLaMA-family GGUF model (vkattn/models/language_model.hpp) from Python. The
// tokenizer lives on the host with the object; the weights are uploaded once per device (a
// session resource), so the model stays valid across use_device(). generate() returns a
// vkattn.Generation with the text, the ids, the tokens as the tokenizer split them, and on request
// every step's logits and every layer's attention as NumPy arrays.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <limits>
#include <mutex>

#include "bindings.hpp"
#include "input_checks.hpp"
#include "session.hpp"
#include "vkattn/core/dtype.hpp"
#include "vkattn/models/language_model.hpp"
#include "vkattn/tokenizers/gguf_tokenizer.hpp"
#include "vkattn/tokenizers/text_tokenizer.hpp"

namespace vkattn::python {
namespace {

py::array_t<float> floatArray(std::vector<int64_t> shape, const std::vector<float>& values) {
  py::array_t<float> out(shape);
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

// Token ids from a list of ints or an integer array.
std::vector<int32_t> idList(const py::handle& value, const std::string& name) {
  std::vector<int32_t> ids;
  for (const py::handle item : value) {
    if (py::isinstance<py::array>(item) || !(py::isinstance<py::int_>(item) || py::hasattr(item, "__index__")))
      throw py::type_error("'" + name + "' must hold token ids (ints)");
    ids.push_back(static_cast<int32_t>(intArgument(py::int_(py::reinterpret_borrow<py::object>(item)), name,
                                                   std::numeric_limits<int32_t>::min(),
                                                   std::numeric_limits<int32_t>::max())));
  }
  return ids;
}

// A token's text with invalid UTF-8 (a piece of a character) replaced.
py::str pieceText(const TextTokenizer& tokenizer, int32_t id) {
  const std::string bytes = tokenizer.decode(std::span<const int32_t>(&id, 1), {.renderSpecial = true});
  return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "replace"));
}

py::list pieces(const TextTokenizer& tokenizer, const std::vector<int32_t>& ids) {
  py::list out;
  for (int32_t id : ids) out.append(pieceText(tokenizer, id));
  return out;
}

struct PyGeneration {
  std::string text;
  std::vector<int32_t> promptIds, ids;
  py::list promptTokens, tokens;
  bool endOfSequence = false;
  py::object logits = py::none();
  py::list attention;
  double promptSeconds = 0, generateSeconds = 0;
};

class PyModel {
 public:
  PyModel(const std::string& path, int64_t contextLength, DType kvFormat)
      : m_path(path), m_options{.contextLength = contextLength, .kvFormat = kvFormat}, m_tokenizer(loadTokenizer(path)) {
    onDevice([&](Context& ctx) { return &model(ctx); });  // loads now, so a bad file fails here
  }
  ~PyModel() {
    std::lock_guard<std::mutex> lock(sessionMutex());
    dropSessionResource(this);
  }
  PyModel(const PyModel&) = delete;
  PyModel& operator=(const PyModel&) = delete;

  py::array_t<float> logits(const py::handle& ids) {
    const std::vector<int32_t> tokens = idList(ids, "ids");
    std::vector<float> values = onDevice([&](Context& ctx) { return model(ctx).logits(tokens); });
    return floatArray({static_cast<int64_t>(tokens.size()), m_config.vocab}, values);
  }

  std::vector<int32_t> tokenize(const std::string& text, bool addSpecial, bool parseSpecial) const {
    return m_tokenizer->encode(text, {.addSpecial = addSpecial, .parseSpecial = parseSpecial});
  }

  py::str detokenize(const py::handle& ids, bool renderSpecial) const {
    const std::string bytes = m_tokenizer->decode(idList(ids, "ids"), {.renderSpecial = renderSpecial});
    return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "replace"));
  }

  PyGeneration generate(const py::object& prompt, int64_t maxTokens, double temperature, int64_t topK, double topP,
                        uint64_t seed, bool attention, bool logits) {
    GenerateOptions o;
    o.maxTokens = maxTokens;
    o.sampler = {.temperature = static_cast<float>(temperature), .topK = topK, .topP = static_cast<float>(topP),
                 .seed = seed};
    o.attention = attention;
    o.logits = logits;
    const std::vector<int32_t> promptIds =
        py::isinstance<py::str>(prompt) ? tokenize(prompt.cast<std::string>(), true, true) : idList(prompt, "prompt");
    Generation g = onDevice([&](Context& ctx) { return model(ctx).generate(promptIds, o); });

    PyGeneration out;
    out.text = g.text;
    out.promptIds = g.promptIds;
    out.ids = g.ids;
    out.promptTokens = pieces(*m_tokenizer, g.promptIds);
    out.tokens = pieces(*m_tokenizer, g.ids);
    out.endOfSequence = g.endOfSequence;
    if (logits)
      out.logits = floatArray({static_cast<int64_t>(g.logits.size()) / m_config.vocab, m_config.vocab}, g.logits);
    for (const AttentionMap& map : g.attention) out.attention.append(floatArray({map.heads, map.rows, map.cols}, map.weights));
    out.promptSeconds = g.promptSeconds;
    out.generateSeconds = g.generateSeconds;
    return out;
  }

  py::dict config() const {
    const LanguageModelConfig& c = m_config;
    py::dict d;
    d["architecture"] = c.architecture;
    d["name"] = c.name;
    d["layers"] = c.layers;
    d["d_model"] = c.modelDim;
    d["ffn_dim"] = c.ffnDim;
    d["num_heads"] = c.heads;
    d["num_kv_heads"] = c.kvHeads;
    d["head_dim"] = c.headDim;
    d["vocab_size"] = c.vocab;
    d["context_length"] = c.contextLength;
    d["rope_theta"] = c.ropeTheta;
    d["rms_norm_eps"] = c.normEps;
    return d;
  }

 private:
  struct Loaded : SessionResource {
    explicit Loaded(LanguageModel m) : model(std::move(m)) {}
    LanguageModel model;
  };

  // The model on the session's device, loaded on first use there. Runs inside onDevice.
  LanguageModel& model(Context& ctx) {
    if (auto* loaded = sessionResource(this)) return static_cast<Loaded*>(loaded)->model;
    auto& made = static_cast<Loaded&>(setSessionResource(this, std::make_unique<Loaded>(LanguageModel(ctx, m_path, m_options))));
    m_config = made.model.config();
    return made.model;
  }

  std::string m_path;
  LanguageModelOptions m_options;
  std::unique_ptr<TextTokenizer> m_tokenizer;
  LanguageModelConfig m_config;
};

}  // namespace

void bindLanguageModel(py::module_& m) {
  py::class_<PyGeneration>(m, "Generation", "What vkattn.Model.generate produced.")
      .def_readonly("text", &PyGeneration::text, "the generated text (control tokens left out)")
      .def_readonly("ids", &PyGeneration::ids, "generated token ids, end-of-sequence included when produced")
      .def_readonly("prompt_ids", &PyGeneration::promptIds)
      .def_readonly("tokens", &PyGeneration::tokens, "each generated token's text")
      .def_readonly("prompt_tokens", &PyGeneration::promptTokens)
      .def_readonly("end_of_sequence", &PyGeneration::endOfSequence)
      .def_readonly("logits", &PyGeneration::logits, "(steps, vocab) float32 when asked for, else None")
      .def_readonly("attention", &PyGeneration::attention,
                    "one (heads, T, T) float32 array per layer when asked for: row t is position t's attention")
      .def_readonly("prompt_seconds", &PyGeneration::promptSeconds)
      .def_readonly("generate_seconds", &PyGeneration::generateSeconds);

  py::class_<PyModel>(m, "Model",
                      "A LLaMA-family model (GGUF architectures llama and qwen2) on the current device. "
                      "context_length: positions the KV cache holds (0: the file's, at most 4096). kv_dtype: "
                      "'bf16', 'q8_0' or 'q4_0' stores keys and values so (None: float32).")
      .def(py::init([](const std::string& path, const py::object& contextLength, const py::object& kvDtype) {
             DType format = DType::F32;
             if (!kvDtype.is_none()) {
               const std::optional<DType> named = kvFormatFromString(py::str(kvDtype).cast<std::string>());
               if (!py::isinstance<py::str>(kvDtype) || !named)
                 throw py::value_error("'kv_dtype' must be None, 'bf16', 'q8_0' or 'q4_0'");
               format = *named;
             }
             return std::make_unique<PyModel>(
                 path,
                 contextLength.is_none() ? 0 : intArgument(contextLength, "context_length", 0,
                                                           std::numeric_limits<int32_t>::max()),
                 format);
           }),
           py::arg("path"), py::kw_only(), py::arg("context_length") = py::none(), py::arg("kv_dtype") = py::none())
      .def("logits", &PyModel::logits, py::arg("ids"),
           "(len(ids), vocab) float32: the logits of a fresh sequence at positions 0..")
      .def("tokenize", &PyModel::tokenize, py::arg("text"), py::kw_only(), py::arg("add_special") = true,
           py::arg("parse_special") = false)
      .def("detokenize", &PyModel::detokenize, py::arg("ids"), py::kw_only(), py::arg("render_special") = false)
      .def("generate", &PyModel::generate, py::arg("prompt"), py::kw_only(), py::arg("max_tokens") = 64,
           py::arg("temperature") = 0.0, py::arg("top_k") = 0, py::arg("top_p") = 1.0, py::arg("seed") = 0,
           py::arg("attention") = false, py::arg("logits") = false,
           "prompt: text (tokenized with bos, control-token texts parsed) or token ids. Greedy unless "
           "temperature > 0.")
      .def_property_readonly("config", &PyModel::config);
}

}  // namespace vkattn::python
