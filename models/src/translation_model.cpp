#include "vkattn/models/translation_model.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "model_weights.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/models/attention_layer.hpp"
#include "vkattn/models/tokenizer.hpp"
#include "vkattn/ops/embedding.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn {
namespace {

struct EncoderLayer {
  detail::NormWeights norm1, norm2;
  MultiHeadAttention selfAttention;
  detail::LinearWeights fc1, fc2;
};

struct DecoderLayer {
  detail::NormWeights norm1, norm2, norm3;
  MultiHeadAttention selfAttention;
  MultiHeadAttention crossAttention;
  detail::LinearWeights fc1, fc2;
};

AttentionMap toMap(const Tensor& weights) {
  // [1, heads, rows, cols] from attentionWeights
  AttentionMap map;
  map.heads = weights.shape()[1];
  map.rows = weights.shape()[2];
  map.cols = weights.shape()[3];
  map.weights = weights.download();
  return map;
}

}  // namespace

struct TranslationModel::Impl {
  Context& ctx;
  detail::TranslationConfig config;
  Vocabulary source;
  Vocabulary target;
  Tensor sourceEmbedding, targetEmbedding, positions;
  std::vector<EncoderLayer> encoder;
  std::vector<DecoderLayer> decoder;
  detail::NormWeights encoderNorm, decoderNorm;
  detail::LinearWeights generator;

  Impl(Context& context, const std::filesystem::path& dir)
      : ctx(context), source(Vocabulary::load(dir / "en_fr.src.txt")), target(Vocabulary::load(dir / "en_fr.tgt.txt")) {
    detail::ModelWeights weights(ctx, dir / "en_fr.safetensors");
    config = weights.translationConfig();
    sourceEmbedding = weights.tensor("src_embed.weight", {source.size(), config.modelDim});
    targetEmbedding = weights.tensor("tgt_embed.weight", {target.size(), config.modelDim});
    positions = weights.tensor("pos_encoding", {config.maxLength, config.modelDim});
    for (int64_t i = 0; i < config.encoderLayers; ++i) {
      const std::string p = "encoder.layers." + std::to_string(i) + ".";
      encoder.push_back({weights.norm(p + "norm1", config.modelDim), weights.norm(p + "norm2", config.modelDim),
                         weights.attention(p + "self_attn", attentionConfig(config.encoderKvHeads)),
                         weights.linear(p + "ffn.fc1", config.ffnDim, config.modelDim),
                         weights.linear(p + "ffn.fc2", config.modelDim, config.ffnDim)});
    }
    for (int64_t i = 0; i < config.decoderLayers; ++i) {
      const std::string p = "decoder.layers." + std::to_string(i) + ".";
      decoder.push_back({weights.norm(p + "norm1", config.modelDim), weights.norm(p + "norm2", config.modelDim),
                         weights.norm(p + "norm3", config.modelDim),
                         weights.attention(p + "self_attn", attentionConfig(config.decoderKvHeads)),
                         weights.attention(p + "cross_attn", attentionConfig(config.crossKvHeads)),
                         weights.linear(p + "ffn.fc1", config.ffnDim, config.modelDim),
                         weights.linear(p + "ffn.fc2", config.modelDim, config.ffnDim)});
    }
    encoderNorm = weights.norm("encoder.norm", config.modelDim);
    decoderNorm = weights.norm("decoder.norm", config.modelDim);
    generator = weights.linear("generator", target.size(), config.modelDim);
  }

  AttentionLayerConfig attentionConfig(int64_t kvHeads) const {
    return {.modelDim = config.modelDim, .heads = config.heads, .kvHeads = kvHeads, .headDim = 0, .rope = {}};
  }

  TensorView norm(const detail::NormWeights& w, const TensorView& x) {
    const TensorView y = ctx.scratch(x.shape);
    layerNorm(ctx, x, y, {.weight = w.weight.view(), .bias = w.bias.view(), .eps = config.normEps});
    return y;
  }

  // x + fc2(gelu(fc1(norm(x)))) into y.
  void feedForward(const detail::NormWeights& n, const detail::LinearWeights& fc1, const detail::LinearWeights& fc2,
                   const TensorView& x, const TensorView& y) {
    const TensorView h = norm(n, x);
    const TensorView hidden = ctx.scratch({x.dim(0), x.dim(1), config.ffnDim});
    linear(ctx, h, fc1.weight, hidden, {.bias = fc1.bias.view(), .activation = Activation::Gelu});
    linear(ctx, hidden, fc2.weight, y, {.bias = fc2.bias.view(), .residual = x});
  }

  TensorView embed(const Tensor& table, const Tensor& ids, int64_t positionOffset) {
    const TensorView x = ctx.scratch({1, ids.shape()[1], config.modelDim});
    embedding(ctx, table, ids, x, {.positions = positions.view(), .positionOffset = positionOffset});
    return x;
  }

  // The encoder's output [1, S, d]; per-layer self-attention probabilities into `maps` if given.
  TensorView encode(const Tensor& ids, std::vector<Tensor>* maps) {
    TensorView x = embed(sourceEmbedding, ids, 0);
    for (std::size_t l = 0; l < encoder.size(); ++l) {
      EncoderLayer& layer = encoder[l];
      const TensorView h = norm(layer.norm1, x);
      const TensorView attended = ctx.scratch(x.shape);
      layer.selfAttention.forward(ctx, h, h, attended, {.residual = x, .weights = maps ? &(*maps)[l] : nullptr});
      const TensorView y = ctx.scratch(x.shape);
      feedForward(layer.norm2, layer.fc1, layer.fc2, attended, y);
      x = y;
    }
    return norm(encoderNorm, x);
  }

  // Runs the decoder over ids [1, L] at positions offset.., appending to the self-attention
  // caches; returns the final-norm output [1, L, d].
  TensorView decode(const Tensor& ids, int64_t offset, std::vector<KeyValueCache>& selfCaches,
                    std::vector<KeyValueCache>& crossCaches, std::vector<Tensor>* selfMaps,
                    std::vector<Tensor>* crossMaps) {
    TensorView x = embed(targetEmbedding, ids, offset);
    for (std::size_t l = 0; l < decoder.size(); ++l) {
      DecoderLayer& layer = decoder[l];
      const TensorView h = norm(layer.norm1, x);
      layer.selfAttention.append(ctx, h, selfCaches[l]);
      const TensorView afterSelf = ctx.scratch(x.shape);
      layer.selfAttention.attend(ctx, h, selfCaches[l], afterSelf,
                                 {.causal = true, .residual = x, .weights = selfMaps ? &(*selfMaps)[l] : nullptr});
      const TensorView h2 = norm(layer.norm2, afterSelf);
      const TensorView afterCross = ctx.scratch(x.shape);
      layer.crossAttention.attend(ctx, h2, crossCaches[l], afterCross,
                                  {.residual = afterSelf, .weights = crossMaps ? &(*crossMaps)[l] : nullptr});
      const TensorView y = ctx.scratch(x.shape);
      feedForward(layer.norm3, layer.fc1, layer.fc2, afterCross, y);
      x = y;
    }
    return norm(decoderNorm, x);
  }

  std::vector<KeyValueCache> selfCaches(int64_t capacity) const {
    std::vector<KeyValueCache> caches;
    for (const DecoderLayer& layer : decoder) caches.push_back(layer.selfAttention.makeCache(ctx, 1, capacity));
    return caches;
  }

  Translation translate(const std::string& english, const TranslateOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    if (options.maxTokens < 1) throw InvalidArgument("maxTokens", "must be at least 1");
    const int64_t maxTokens = std::min(options.maxTokens, config.maxLength);
    Translation result;
    result.sourceTokens = tokenizeWords(english);
    if (result.sourceTokens.empty()) throw InvalidArgument("english", "holds no words");
    std::vector<int32_t>& sourceIds = result.sourceIds;
    for (const std::string& token : result.sourceTokens) sourceIds.push_back(source.id(token));
    sourceIds.push_back(Vocabulary::kEos);
    result.sourceTokens.push_back("<eos>");
    const auto sourceLength = static_cast<int64_t>(sourceIds.size());
    if (sourceLength > config.maxLength)
      throw InvalidArgument("english", std::to_string(sourceLength - 1) + " tokens; the model takes at most " +
                                           std::to_string(config.maxLength - 1));

    // Encoder, then every decoder layer's cross-attention keys and values, once.
    const Tensor sourceTensor = Tensor::fromHostInt(ctx.device(), {1, sourceLength}, sourceIds);
    std::vector<Tensor> encoderMaps(encoder.size());
    std::vector<KeyValueCache> crossCaches;
    for (const DecoderLayer& layer : decoder)
      crossCaches.push_back(layer.crossAttention.makeCache(ctx, 1, sourceLength));
    {
      Batch batch(ctx);
      const TensorView memory = encode(sourceTensor, options.attention ? &encoderMaps : nullptr);
      for (std::size_t l = 0; l < decoder.size(); ++l) decoder[l].crossAttention.append(ctx, memory, crossCaches[l]);
      batch.submit();
    }

    // Greedy decoding, one token per submission, keys and values cached.
    std::vector<KeyValueCache> caches = selfCaches(maxTokens);
    Tensor logits = ctx.tensor({1, target.size()});
    Tensor step = ctx.tensor({1, 1}, DType::I32);
    std::vector<int32_t> inputs{Vocabulary::kBos};
    for (int64_t t = 0; t < maxTokens; ++t) {
      step.uploadInt(std::span<const int32_t>(&inputs.back(), 1));
      Batch batch(ctx);
      const TensorView out = decode(step, t, caches, crossCaches, nullptr, nullptr);
      linear(ctx, out.reshaped({1, config.modelDim}), generator.weight, logits, {.bias = generator.bias.view()});
      batch.submit();
      const std::vector<float> row = logits.download();
      if (options.logits) result.logits.insert(result.logits.end(), row.begin(), row.end());
      const auto best = static_cast<int32_t>(std::max_element(row.begin(), row.end()) - row.begin());
      result.targetIds.push_back(best);
      result.targetTokens.push_back(target.token(best));
      if (best == Vocabulary::kEos) break;
      inputs.push_back(best);
    }
    std::vector<std::string> words(result.targetTokens.begin(), result.targetTokens.end());
    if (!words.empty() && words.back() == "<eos>") words.pop_back();
    result.text = detokenizeWords(words);

    if (options.attention) {
      // One teacher-forced pass over the generated sequence yields the full decoder maps.
      const auto steps = static_cast<int64_t>(result.targetIds.size());
      const Tensor all = Tensor::fromHostInt(ctx.device(), {1, steps},
                                             std::span<const int32_t>(inputs.data(), static_cast<std::size_t>(steps)));
      std::vector<KeyValueCache> fresh = selfCaches(steps);
      std::vector<Tensor> selfMaps(decoder.size()), crossMaps(decoder.size());
      Batch batch(ctx);
      decode(all, 0, fresh, crossCaches, &selfMaps, &crossMaps);
      batch.submit();
      if (options.attentionOnDevice) {
        result.encoderSelfWeights = std::move(encoderMaps);
        result.decoderSelfWeights = std::move(selfMaps);
        result.crossWeights = std::move(crossMaps);
      } else {
        for (const Tensor& m : encoderMaps) result.encoderSelf.push_back(toMap(m));
        for (const Tensor& m : selfMaps) result.decoderSelf.push_back(toMap(m));
        for (const Tensor& m : crossMaps) result.cross.push_back(toMap(m));
      }
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
};

TranslationModel::TranslationModel(Context& ctx, const std::filesystem::path& dir)
    : m_impl(std::make_unique<Impl>(ctx, dir)) {}
TranslationModel::~TranslationModel() = default;
TranslationModel::TranslationModel(TranslationModel&&) noexcept = default;

Translation TranslationModel::translate(const std::string& english, const TranslateOptions& options) {
  return m_impl->translate(english, options);
}

int64_t TranslationModel::layersEncoder() const {
  return m_impl->config.encoderLayers;
}
int64_t TranslationModel::layersDecoder() const {
  return m_impl->config.decoderLayers;
}
int64_t TranslationModel::heads() const {
  return m_impl->config.heads;
}
int64_t TranslationModel::targetVocabSize() const {
  return m_impl->target.size();
}

}  // namespace vkattn
