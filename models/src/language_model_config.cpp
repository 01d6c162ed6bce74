#include "vkattn/models/language_model_config.hpp"

#include <cmath>
#include <optional>

#include "vkattn/core/error.hpp"
#include "vkattn/io/gguf.hpp"

namespace vkattn {
namespace {

struct Keys {
  const GgufMetadata& metadata;
  std::string arch;

  std::string key(const std::string& suffix) const { return arch + "." + suffix; }

  int64_t positive(const std::string& suffix) const {
    const std::string k = key(suffix);
    const int64_t v = metadata.getInteger(k);
    if (v < 1) throw InvalidArgument(k, std::to_string(v) + " must be positive");
    return v;
  }
  int64_t positiveOr(const std::string& suffix, int64_t fallback) const {
    return metadata.contains(key(suffix)) ? positive(suffix) : fallback;
  }
  // f32 or f64, as writers differ.
  std::optional<double> real(const std::string& suffix) const {
    const std::string k = key(suffix);
    const GgufValue* v = metadata.find(k);
    if (!v) return std::nullopt;
    if (const float* f = v->getIf<float>()) return *f;
    if (const double* d = v->getIf<double>()) return *d;
    return static_cast<double>(metadata.getInteger(k));  // an integer, or the error naming both types
  }
  std::string text(const std::string& suffix, const std::string& fallback) const {
    return metadata.contains(key(suffix)) ? metadata.getString(key(suffix)) : fallback;
  }
};

std::vector<double> ropeDivisors(const GgufFile& file, const Keys& keys, int64_t rotaryDim) {
  const std::string type = keys.text("rope.scaling.type", "none");
  const auto half = static_cast<std::size_t>(rotaryDim / 2);
  if (file.contains("rope_freqs.weight")) {  // Llama 3: the converter wrote each pair's divisor
    const GgufTensorInfo& info = file.tensor("rope_freqs.weight");
    if (info.elements != half)
      throw InvalidArgument("rope_freqs.weight", std::to_string(info.elements) + " values, expected " +
                                                     std::to_string(half) + " (rope.dimension_count / 2)");
    std::vector<double> divisors;
    for (float f : file.dequantize("rope_freqs.weight")) {
      if (!(f > 0.0f) || !std::isfinite(f))
        throw InvalidArgument("rope_freqs.weight", "holds " + std::to_string(f) + "; divisors must be finite and > 0");
      divisors.push_back(f);
    }
    return divisors;
  }
  if (type == "none") return {};
  if (type == "linear") {
    const double factor = keys.real("rope.scaling.factor").value_or(1.0);
    if (!(factor > 0.0) || !std::isfinite(factor))
      throw InvalidArgument(keys.key("rope.scaling.factor"), std::to_string(factor) + " must be finite and > 0");
    return std::vector<double>(half, factor);
  }
  throw Unsupported("key '" + keys.key("rope.scaling.type") + "': rope scaling \"" + type +
                    "\" (vkattn runs none, linear and Llama 3's rope_freqs)");
}

float softcap(const Keys& keys, const std::string& suffix, double fallback) {
  const double c = keys.real(suffix).value_or(fallback);
  if (!(c >= 0.0) || !std::isfinite(c))
    throw InvalidArgument(keys.key(suffix), std::to_string(c) + " must be finite and >= 0 (0: none)");
  return static_cast<float>(c);
}

// Gemma 2 and 3 as llama.cpp runs them (its converter has already added Gemma's 1 to every norm
// weight, so the norms are plain RMSNorms).
void readGemma(const Keys& keys, LanguageModelConfig& c) {
  const bool gemma2 = c.architecture == "gemma2";
  c.gateActivation = Activation::GeluTanh;
  c.postNorms = true;
  c.embeddingScale = std::sqrt(static_cast<double>(c.modelDim));
  // The 27B models (46 layers of Gemma 2, 62 of Gemma 3) scale queries by 1 / sqrt(width / heads)
  // (their query_pre_attn_scalar), the others by 1 / sqrt(head dim): llama.cpp tells them apart by
  // the layer count too, as the file has no key for it.
  const bool is27B = c.layers == (gemma2 ? 46 : 62);
  c.queryScale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(is27B ? c.modelDim / c.heads : c.headDim)));
  c.finalSoftcap = softcap(keys, "final_logit_softcapping", gemma2 ? 30.0 : 0.0);
  if (gemma2) {
    c.attentionSoftcap = softcap(keys, "attn_logit_softcapping", 50.0);
    c.slidingWindow = keys.positiveOr("attention.sliding_window", 4096);
    c.slidingPattern = 2;  // even layers slide
  } else {                 // without a window (or 0) every layer is global
    const std::string window = keys.key("attention.sliding_window");
    c.slidingWindow = keys.metadata.contains(window) ? keys.metadata.getInteger(window) : 0;
    if (c.slidingWindow < 0) throw InvalidArgument(window, std::to_string(c.slidingWindow) + " must be >= 0");
    c.slidingPattern = 6;  // layers 5, 11, ... are global
    c.slidingRopeTheta = 10000.0;
  }
}

}  // namespace

LanguageModelConfig readLanguageModelConfig(const GgufFile& file) {
  const GgufMetadata& metadata = file.metadata();
  LanguageModelConfig c;
  c.architecture = metadata.getString("general.architecture");
  const std::string& arch = c.architecture;
  if (!isLanguageModelArchitecture(arch))
    throw Unsupported("key 'general.architecture': \"" + arch +
                      "\" (vkattn runs llama, qwen2, qwen3, gemma2 and gemma3)");
  if (metadata.contains("general.name")) c.name = metadata.getString("general.name");
  const Keys keys{metadata, c.architecture};

  c.layers = keys.positive("block_count");
  c.modelDim = keys.positive("embedding_length");
  c.ffnDim = keys.positive("feed_forward_length");
  c.heads = keys.positive("attention.head_count");
  c.kvHeads = keys.positiveOr("attention.head_count_kv", c.heads);
  if (c.heads % c.kvHeads != 0)
    throw InvalidArgument(keys.key("attention.head_count_kv"),
                          std::to_string(c.kvHeads) + " does not divide the head count " + std::to_string(c.heads));
  if (!metadata.contains(keys.key("attention.key_length")) && c.modelDim % c.heads != 0)
    throw InvalidArgument(keys.key("attention.head_count"),
                          std::to_string(c.heads) + " does not divide embedding_length " + std::to_string(c.modelDim));
  c.headDim = keys.positiveOr("attention.key_length", c.modelDim / c.heads);
  const int64_t valueDim = keys.positiveOr("attention.value_length", c.headDim);
  if (valueDim != c.headDim)
    throw Unsupported("key '" + keys.key("attention.value_length") + "': " + std::to_string(valueDim) +
                      " differs from key_length " + std::to_string(c.headDim));
  if (c.headDim % 2 != 0)
    throw InvalidArgument(keys.key("attention.key_length"), "head dim " + std::to_string(c.headDim) + " must be even");
  c.contextLength = keys.positiveOr("context_length", 2048);
  c.normEps = static_cast<float>(keys.real("attention.layer_norm_rms_epsilon").value_or(1e-5));
  if (!(c.normEps > 0.0f)) throw InvalidArgument(keys.key("attention.layer_norm_rms_epsilon"), "must be > 0");
  c.ropeTheta = keys.real("rope.freq_base").value_or(10000.0);
  if (!(c.ropeTheta > 1.0) || !std::isfinite(c.ropeTheta))
    throw InvalidArgument(keys.key("rope.freq_base"), std::to_string(c.ropeTheta) + " must be finite and > 1");
  c.rotaryDim = keys.positiveOr("rope.dimension_count", c.headDim);
  if (c.rotaryDim > c.headDim || c.rotaryDim % 2 != 0)
    throw InvalidArgument(
        keys.key("rope.dimension_count"),
        std::to_string(c.rotaryDim) + " must be even and at most the head dim " + std::to_string(c.headDim));
  c.ropeInterleaved = c.architecture == "llama";
  c.ropeDivisors = ropeDivisors(file, keys, c.rotaryDim);
  c.attentionBiases = arch == "qwen2";
  c.headNorms = arch == "qwen3" || arch == "gemma3";
  c.tiedOutput = !file.contains("output.weight");
  if (arch == "gemma2" || arch == "gemma3") readGemma(keys, c);

  const std::vector<int64_t> embedding = file.tensor("token_embd.weight").rowMajorShape();
  if (embedding.size() != 2 || embedding[1] != c.modelDim)
    throw InvalidArgument("token_embd.weight", "must be [vocab, " + std::to_string(c.modelDim) + "]");
  c.vocab = embedding[0];
  if (metadata.contains(keys.key("vocab_size")) && keys.positive("vocab_size") != c.vocab)
    throw InvalidArgument(keys.key("vocab_size"), std::to_string(keys.positive("vocab_size")) +
                                                      " differs from token_embd.weight's " + std::to_string(c.vocab) +
                                                      " rows");
  return c;
}

}  // namespace vkattn
