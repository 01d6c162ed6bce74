#include "model_weights.hpp"

#include <cstdlib>

#include "vkattn/core/error.hpp"

namespace vkattn::detail {

ModelWeights::ModelWeights(Context& ctx, const std::filesystem::path& file) : m_ctx(ctx), m_path(file), m_file(file) {}

std::string ModelWeights::metadataString(const std::string& key) const {
  const auto& metadata = m_file.metadata();
  auto it = metadata.find(key);
  if (it == metadata.end()) throw InvalidArgument("model", m_path.string() + ": metadata has no '" + key + "'");
  return it->second;
}

int64_t ModelWeights::metadataInt(const std::string& key, int64_t min, int64_t max) const {
  const std::string text = metadataString(key);
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < min || value > max)
    throw InvalidArgument("model", m_path.string() + ": metadata '" + key + "' is '" + text +
                                       "', expected an integer in [" + std::to_string(min) + ", " +
                                       std::to_string(max) + "]");
  return value;
}

TranslationConfig ModelWeights::translationConfig() const {
  if (metadataString("format") != "vkattn-translation-v1")
    throw InvalidArgument("model", m_path.string() + ": format is not vkattn-translation-v1");
  if (metadataString("activation") != "gelu")
    throw InvalidArgument("model", m_path.string() + ": only the gelu activation is supported");
  TranslationConfig c;
  c.modelDim = metadataInt("d_model", 8, 4096);
  c.heads = metadataInt("heads", 1, 256);
  c.encoderLayers = metadataInt("encoder_layers", 1, 64);
  c.decoderLayers = metadataInt("decoder_layers", 1, 64);
  c.encoderKvHeads = metadataInt("encoder_kv_heads", 1, c.heads);
  c.decoderKvHeads = metadataInt("decoder_kv_heads", 1, c.heads);
  c.crossKvHeads = metadataInt("cross_kv_heads", 1, c.heads);
  c.ffnDim = metadataInt("ffn", 1, 65536);
  c.maxLength = metadataInt("max_len", 2, 65536);
  const std::string eps = metadataString("norm_eps");
  char* end = nullptr;
  c.normEps = std::strtof(eps.c_str(), &end);
  if (eps.empty() || *end != '\0' || !(c.normEps > 0.0f))
    throw InvalidArgument("model", m_path.string() + ": metadata 'norm_eps' is '" + eps + "'");
  return c;
}

Tensor ModelWeights::tensor(const std::string& name, const Shape& shape) const {
  Tensor t = m_file.load(m_ctx, name, DType::F32);
  if (t.shape() != shape)
    throw InvalidArgument("model", m_path.string() + ": tensor '" + name + "' is " + toString(t.shape()) +
                                       ", expected " + toString(shape));
  return t;
}

LinearWeights ModelWeights::linear(const std::string& prefix, int64_t out, int64_t in) const {
  return {tensor(prefix + ".weight", {out, in}), tensor(prefix + ".bias", {out})};
}

NormWeights ModelWeights::norm(const std::string& prefix, int64_t dim) const {
  return {tensor(prefix + ".weight", {dim}), tensor(prefix + ".bias", {dim})};
}

MultiHeadAttention ModelWeights::attention(const std::string& prefix, const AttentionLayerConfig& config) const {
  const int64_t headDim = config.headDim ? config.headDim : config.modelDim / config.heads;
  const int64_t q = config.heads * headDim, kv = config.kvHeads * headDim, d = config.modelDim;
  LinearWeights wq = linear(prefix + ".q_proj", q, d), wk = linear(prefix + ".k_proj", kv, d),
                wv = linear(prefix + ".v_proj", kv, d), wo = linear(prefix + ".o_proj", d, q);
  AttentionLayerWeights weights{std::move(wq.weight), std::move(wk.weight), std::move(wv.weight), std::move(wo.weight),
                                std::move(wq.bias),   std::move(wk.bias),   std::move(wv.bias),   std::move(wo.bias)};
  return MultiHeadAttention(m_ctx, config, std::move(weights));
}

}  // namespace vkattn::detail
