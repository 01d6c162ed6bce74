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
#include "vkattn/core/error.hpp"
#include "vkattn/models/language_model.hpp"
#include "vkattn/models/token_sampler.hpp"
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
  if (!py::hasattr(value, "__iter__") || py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value))
    throw py::type_error("'" + name + "' must be " + (name == "prompt" ? "a str or " : "") +
                         "a sequence of token ids (ints), got " +
                         std::string(py::str(value.get_type().attr("__name__"))));
  std::vector<int32_t> ids;
  for (const py::handle item : value) {
    if (py::isinstance<py::array>(item) || !(py::isinstance<py::int_>(item) || py::hasattr(item, "__index__")))
      throw py::type_error("'" + name + "' must hold token ids (ints)");
    ids.push_back(
        static_cast<int32_t>(intArgument(py::int_(py::reinterpret_borrow<py::object>(item)), name,
                                         std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max())));
  }
  return ids;
}

// Text from bytes that need not be UTF-8 (a token may hold part of a character): every invalid
// sequence becomes U+FFFD, the way Python's bytes.decode(errors="replace") does it.
py::str replacingText(const std::string& bytes) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "replace"));
}

// A token's bytes as the tokenizer decodes it alone, control tokens rendered.
std::string pieceBytes(const TextTokenizer& tokenizer, int32_t id) {
  return tokenizer.decode(std::span<const int32_t>(&id, 1), {.renderSpecial = true});
}

// Each token of `ids` alone: as text (U+FFFD for bytes that are no character) or as its bytes.
py::list pieces(const TextTokenizer& tokenizer, const std::vector<int32_t>& ids, bool asBytes = false) {
  py::list out;
  for (int32_t id : ids) {
    const std::string bytes = pieceBytes(tokenizer, id);
    out.append(asBytes ? py::object(py::bytes(bytes)) : py::object(replacingText(bytes)));
  }
  return out;
}

// The C++ names of generate()'s and Model()'s arguments, as Python spells them.
std::string pythonName(const std::string& argument) {
  if (argument == "maxTokens") return "max_tokens";
  if (argument == "topK") return "top_k";
  if (argument == "topP") return "top_p";
  if (argument == "contextLength") return "context_length";
  return argument;
}

struct PyGeneration {
  std::string bytes;  // what the model wrote, exactly (not necessarily UTF-8)
  std::vector<int32_t> promptIds, ids;
  py::list promptTokens, tokens, tokenBytes;
  std::vector<std::string> promptLabels, tokenLabels;  // as the viewer labels them (tokenLabel)
  bool endOfSequence = false;
  std::string endReason;
  uint64_t seed = 0;
  py::object logits = py::none();
  py::list attention;
  double promptSeconds = 0, generateSeconds = 0;
  double generateWaitSeconds = 0;  // of generateSeconds, waiting for the device

  py::str text() const { return replacingText(bytes); }
  // The tokens at the attention maps' positions: the prompt, then every generated token but the
  // last (which was sampled, never fed).
  py::list labels() const {
    py::list out;
    for (const std::string& t : promptLabels) out.append(py::str(t));
    for (std::size_t i = 0; i + 1 < tokenLabels.size(); ++i) out.append(py::str(tokenLabels[i]));
    return out;
  }
};

class PyModel {
 public:
  PyModel(const std::string& path, int64_t contextLength, DType kvFormat)
      : m_path(path),
        m_options{.contextLength = contextLength, .kvFormat = kvFormat},
        m_tokenizer(loadTokenizer(path)) {
    std::string warning;
    try {  // loads now, so a bad file fails here
      warning = onDevice([&](Context& ctx) { return model(ctx).contextWarning(); });
    } catch (const InvalidArgument& e) {
      throw py::value_error("'" + pythonName(e.argument()) + "' " + e.problem());
    }
    if (!warning.empty() && PyErr_WarnEx(PyExc_UserWarning, warning.c_str(), 1) < 0) throw py::error_already_set();
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
    return py::reinterpret_steal<py::str>(
        PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "replace"));
  }

  PyGeneration generate(const py::object& prompt, const py::object& maxTokens, const py::object& temperature,
                        const py::object& topK, const py::object& topP, const py::object& seed, bool attention,
                        bool logits, bool ignoreEos) {
    GenerateOptions o;
    o.maxTokens = intArgument(maxTokens, "max_tokens", 0, std::numeric_limits<int32_t>::max());
    const double t = finiteArgument(temperature, "temperature"), p = finiteArgument(topP, "top_p");
    if (t < 0) throw py::value_error("'temperature' must be >= 0, got " + std::to_string(t));
    if (!(p > 0 && p <= 1)) throw py::value_error("'top_p' must be in (0, 1], got " + std::to_string(p));
    o.sampler = {.temperature = static_cast<float>(t),
                 .topK = intArgument(topK, "top_k", 0, std::numeric_limits<int32_t>::max()),
                 .topP = static_cast<float>(p),
                 .seed = seed.is_none() ? freshSeed() : static_cast<uint64_t>(intArgument(seed, "seed", 0))};
    o.attention = attention;
    o.logits = logits;
    o.ignoreEos = ignoreEos;
    const std::vector<int32_t> promptIds =
        py::isinstance<py::str>(prompt) ? tokenize(prompt.cast<std::string>(), true, true) : idList(prompt, "prompt");
    Generation g = onDevice([&](Context& ctx) { return model(ctx).generate(promptIds, o); });

    PyGeneration out;
    out.bytes = g.text;
    out.promptIds = g.promptIds;
    out.ids = g.ids;
    out.promptTokens = pieces(*m_tokenizer, g.promptIds);
    out.tokens = pieces(*m_tokenizer, g.ids);
    out.tokenBytes = pieces(*m_tokenizer, g.ids, true);
    for (int32_t id : g.promptIds) out.promptLabels.push_back(tokenLabel(*m_tokenizer, id));
    for (int32_t id : g.ids) out.tokenLabels.push_back(tokenLabel(*m_tokenizer, id));
    out.seed = o.sampler.seed;
    out.endOfSequence = g.endOfSequence;
    out.endReason = toString(g.end);
    if (logits)
      out.logits = floatArray({static_cast<int64_t>(g.logits.size()) / m_config.vocab, m_config.vocab}, g.logits);
    for (const AttentionMap& map : g.attention)
      out.attention.append(floatArray({map.heads, map.rows, map.cols}, map.weights));
    out.promptSeconds = g.promptSeconds;
    out.generateSeconds = g.generateSeconds;
    out.generateWaitSeconds = g.generateWaitSeconds;
    return out;
  }

  py::dict perplexity(const std::string& text, const py::object& context) {
    const int64_t n = context.is_none() ? 0 : intArgument(context, "context", 0, std::numeric_limits<int32_t>::max());
    Perplexity p;
    try {
      p = onDevice([&](Context& ctx) { return model(ctx).perplexity(text, n); });
    } catch (const InvalidArgument& e) {
      throw py::value_error("'" + pythonName(e.argument()) + "' " + e.problem());
    }
    py::dict d;
    d["perplexity"] = p.perplexity;
    d["mean_nll"] = p.meanNll;
    d["tokens"] = p.scored;
    d["chunks"] = p.chunks;
    d["context"] = p.context;
    d["seconds"] = p.seconds;
    return d;
  }

  std::string repr() const {
    const LanguageModelConfig& c = m_config;
    return "vkattn.Model(" + std::string(py::repr(py::str(m_path))) + ", architecture='" + c.architecture +
           "', layers=" + std::to_string(c.layers) + ", d_model=" + std::to_string(c.modelDim) +
           ", vocab_size=" + std::to_string(c.vocab) + ")";
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
    auto& made =
        static_cast<Loaded&>(setSessionResource(this, std::make_unique<Loaded>(LanguageModel(ctx, m_path, m_options))));
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
      .def_property_readonly("text", &PyGeneration::text,
                             "the generated text (control tokens left out); bytes that are no UTF-8 character "
                             "(a model may stop inside one) read as U+FFFD")
      .def_property_readonly(
          "bytes", [](const PyGeneration& g) { return py::bytes(g.bytes); }, "the generated text's exact bytes")
      .def_readonly("ids", &PyGeneration::ids, "generated token ids, end-of-sequence included when produced")
      .def_readonly("prompt_ids", &PyGeneration::promptIds)
      .def_readonly("tokens", &PyGeneration::tokens,
                    "each generated token's text (a token holding part of a character reads U+FFFD there; "
                    "token_bytes has its bytes)")
      .def_readonly("token_bytes", &PyGeneration::tokenBytes, "each generated token's exact bytes")
      .def_readonly("prompt_tokens", &PyGeneration::promptTokens)
      .def_readonly("end_of_sequence", &PyGeneration::endOfSequence)
      .def_readonly("seed", &PyGeneration::seed,
                    "the sampler's seed: the one given, or the fresh one drawn when seed=None (generate(..., "
                    "seed=g.seed) repeats the run)")
      .def_readonly("end_reason", &PyGeneration::endReason,
                    "why generation stopped: 'end_of_sequence', 'max_tokens' or 'context_full' (the model's "
                    "context_length positions are used up)")
      .def_property_readonly("labels", &PyGeneration::labels,
                             "the tokens at the attention maps' positions (the prompt's, then the generated but the "
                             "last) as the viewer labels them (bytes that are no character escaped, '\\xc3'): the "
                             "labels of attention[layer]'s rows and columns")
      .def(
          "view",
          [](const PyGeneration& g, const py::object& layer, const py::kwargs& kwargs) {
            if (py::len(g.attention) == 0)
              throw py::value_error("no attention maps: generate(..., attention=True) keeps them");
            const int64_t l = intArgument(layer, "layer", 0, static_cast<int64_t>(py::len(g.attention)) - 1);
            // Every layer, so that the figure's title names the one shown; causal unless asked otherwise.
            const py::object layers = py::module_::import("numpy").attr("stack")(g.attention);
            py::dict options(kwargs);
            if (!options.contains("causal")) options["causal"] = true;
            options["layer"] = l;
            return py::module_::import("vkattn").attr("view")(layers, g.labels(), **options);
          },
          py::arg("layer") = 0,
          "vkattn.view(attention, labels, layer=layer, causal=True, **kwargs): one layer's maps with their "
          "tokens on both axes, the masked cells hatched (head=, heads=, out=, ... as view takes them).")
      .def_readonly("logits", &PyGeneration::logits, "(steps, vocab) float32 when asked for, else None")
      .def_readonly("attention", &PyGeneration::attention,
                    "one (heads, T, T) float32 array per layer when asked for: row t is position t's attention")
      .def("__repr__",
           [](const PyGeneration& g) {
             std::string text = py::repr(g.text());
             if (text.size() > 60) text = text.substr(0, 56) + "...'";
             return "vkattn.Generation(text=" + text + ", prompt_tokens=" + std::to_string(g.promptIds.size()) +
                    ", tokens=" + std::to_string(g.ids.size()) + ", end_reason='" + g.endReason +
                    "', seed=" + std::to_string(g.seed) + ")";
           })
      .def_readonly("prompt_seconds", &PyGeneration::promptSeconds)
      .def_readonly("generate_seconds", &PyGeneration::generateSeconds)
      .def_readonly("generate_wait_seconds", &PyGeneration::generateWaitSeconds);

  py::class_<PyModel>(
      m, "Model",
      "A GGUF language model (architectures llama, qwen2, qwen3, gemma2 and gemma3) on the current device. "
      "context_length: positions the KV cache holds (0: the file's, capped at 4096; any value up to what the "
      "device's storage buffers hold runs, past the file's with a UserWarning; more is refused). kv_dtype: "
      "'bf16', 'q8_0' or 'q4_0' stores keys and values so (None: float32).")
      .def(py::init([](const py::object& pathArgument, const py::object& contextLength, const py::object& kvDtype) {
             const std::string path = existingFile(pathArgument, "path");
             DType format = DType::F32;
             if (!kvDtype.is_none()) {
               const std::optional<DType> named = kvFormatFromString(py::str(kvDtype).cast<std::string>());
               if (!py::isinstance<py::str>(kvDtype) || !named)
                 throw py::value_error("'kv_dtype' must be None, 'bf16', 'q8_0' or 'q4_0'");
               format = *named;
             }
             return std::make_unique<PyModel>(
                 path,
                 contextLength.is_none()
                     ? 0
                     : intArgument(contextLength, "context_length", 0, std::numeric_limits<int32_t>::max()),
                 format);
           }),
           py::arg("path"), py::kw_only(), py::arg("context_length") = py::none(), py::arg("kv_dtype") = py::none())
      .def("logits", &PyModel::logits, py::arg("ids"),
           "(len(ids), vocab) float32: the logits of a fresh sequence at positions 0..")
      .def("tokenize", &PyModel::tokenize, py::arg("text"), py::kw_only(), py::arg("add_special") = true,
           py::arg("parse_special") = false)
      .def("detokenize", &PyModel::detokenize, py::arg("ids"), py::kw_only(), py::arg("render_special") = false)
      .def("generate", &PyModel::generate, py::arg("prompt"), py::kw_only(), py::arg("max_tokens") = 64,
           py::arg("temperature") = 0.0, py::arg("top_k") = 0, py::arg("top_p") = 1.0, py::arg("seed") = py::none(),
           py::arg("attention") = false, py::arg("logits") = false, py::arg("ignore_eos") = false,
           "prompt: text (tokenized with bos, control-token texts parsed) or token ids. Greedy unless "
           "temperature > 0; seed=None draws a fresh seed (Generation.seed tells which). ignore_eos: sample past the "
           "end-of-sequence token (for timing).")
      .def("perplexity", &PyModel::perplexity, py::arg("text"), py::kw_only(), py::arg("context") = py::none(),
           "The text's perplexity as llama.cpp's llama-perplexity computes it: chunks of context tokens (None: "
           "the model's context_length), bos opening each, the second half of each scored. Returns a dict: "
           "perplexity, mean_nll (nats), tokens (scored), chunks, context, seconds.")
      .def_property_readonly("config", &PyModel::config)
      .def("__repr__", &PyModel::repr);
}

}  // namespace vkattn::python
