#include "vkattn/models/language_model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "language_model_weights.hpp"
#include "vkattn/core/buffer.hpp"
#include "vkattn/core/checked_size.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/replay.hpp"
#include "vkattn/io/gguf.hpp"
#include "vkattn/models/attention_layer.hpp"
#include "vkattn/ops/elementwise.hpp"
#include "vkattn/ops/embedding.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/ops/row_ops.hpp"
#include "vkattn/tokenizers/gguf_tokenizer.hpp"

namespace vkattn {
namespace {

constexpr int64_t kDefaultContextCap = 4096;

struct DecoderLayer {
  Tensor attentionNorm, ffnNorm;
  Tensor postAttentionNorm, postFfnNorm;  // LanguageModelConfig::postNorms only
  MultiHeadAttention attention;
  detail::GatedProjections gateUp;
  detail::RowBlockMatrix down;
};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A [1, heads, rows, cols] probability tensor, downloaded.
AttentionMap downloadMap(const Tensor& weights) {
  return {weights.shape()[1], weights.shape()[2], weights.shape()[3], weights.download()};
}

}  // namespace

struct LanguageModel::Impl {
  Context& ctx;
  GgufFile file;
  LanguageModelConfig config;
  std::unique_ptr<TextTokenizer> tokenizer;
  int64_t context = 0;
  DType kvFormat = DType::F32;
  detail::TokenEmbedding embedding;
  std::vector<DecoderLayer> layers;
  Tensor outputNorm;
  detail::RowBlockMatrix output;

  Impl(Context& c, const std::filesystem::path& path, const LanguageModelOptions& options)
      : ctx(c),
        file(path),
        config(readLanguageModelConfig(file)),
        tokenizer(makeTokenizer(file.metadata())),
        embedding(file, config.vocab, config.modelDim) {
    if (tokenizer->vocabulary().size() != config.vocab)
      throw InvalidArgument("tokenizer.ggml.tokens", std::to_string(tokenizer->vocabulary().size()) +
                                                         " tokens, token_embd.weight has " +
                                                         std::to_string(config.vocab) + " rows");
    if (options.contextLength < 0)
      throw InvalidArgument("contextLength", std::to_string(options.contextLength) + " must be >= 0");
    context = options.contextLength ? options.contextLength : std::min(config.contextLength, kDefaultContextCap);
    kvFormat = options.kvFormat;
    KeyValueCache(ctx, 1, 1, config.kvHeads, config.headDim, kvFormat);  // refuses a format that cannot hold them
    // Each layer's keys (and values) live in one storage buffer.
    const uint64_t perPosition = checkedByteCount({1, config.kvHeads, 1, config.headDim}, kvFormat, "contextLength");
    const uint64_t limit = ctx.info().maxStorageBufferRange;
    if (static_cast<uint64_t>(context) > limit / perPosition)
      throw InvalidArgument("contextLength", std::to_string(context) + " positions need " +
                                                 std::to_string(static_cast<uint64_t>(context) * perPosition >> 20) +
                                                 " MiB of keys per layer; " + ctx.info().name +
                                                 "'s storage buffers hold " + std::to_string(limit >> 20) +
                                                 " MiB: at most " + std::to_string(limit / perPosition) + " positions");

    const LanguageModelConfig& m = config;
    const uint64_t maxBytes = options.maxWeightBytes ? options.maxWeightBytes : ctx.info().maxStorageBufferRange;
    const auto blocks = [&](const std::string& name, int64_t rows, int64_t cols) {
      return detail::RowBlockMatrix(ctx, file, name, rows, cols, maxBytes);
    };
    const int64_t q = m.heads * m.headDim, kv = m.kvHeads * m.headDim;
    AttentionLayerConfig global{.modelDim = m.modelDim,
                                .heads = m.heads,
                                .kvHeads = m.kvHeads,
                                .headDim = m.headDim,
                                .rope = RopeOptions{.theta = m.ropeTheta,
                                                    .interleaved = m.ropeInterleaved,
                                                    .rotaryDim = m.rotaryDim,
                                                    .frequencyDivisors = m.ropeDivisors},
                                .headNormEps = m.normEps,
                                .scale = m.queryScale,
                                .softcap = m.attentionSoftcap};
    AttentionLayerConfig sliding = global;
    sliding.window = m.slidingWindow;
    if (m.slidingRopeTheta > 0)
      sliding.rope =
          RopeOptions{.theta = m.slidingRopeTheta, .interleaved = m.ropeInterleaved, .rotaryDim = m.rotaryDim};
    for (int64_t i = 0; i < m.layers; ++i) {
      const std::string p = "blk." + std::to_string(i) + ".";
      const auto matrix = [&](const std::string& name, int64_t rows, int64_t cols) {
        return detail::deviceMatrix(ctx, file, p + name, rows, cols);
      };
      AttentionLayerWeights weights{.o = matrix("attn_output.weight", m.modelDim, q)};
      // q, k and v stacked into one weight where they share a type and fit one buffer (one
      // product projects all three), else kept apart.
      weights.qkv = detail::stackedMatrix(ctx, file, {p + "attn_q.weight", p + "attn_k.weight", p + "attn_v.weight"},
                                          {q, kv, kv}, m.modelDim, maxBytes);
      if (!weights.qkv) {
        weights.q = matrix("attn_q.weight", q, m.modelDim);
        weights.k = matrix("attn_k.weight", kv, m.modelDim);
        weights.v = matrix("attn_v.weight", kv, m.modelDim);
      }
      std::vector<std::optional<std::vector<float>>> biases;
      for (const auto& [name, size] : {std::pair{"attn_q.bias", q}, {"attn_k.bias", kv}, {"attn_v.bias", kv}}) {
        const std::string full = p + name;
        biases.push_back(file.contains(full) ? std::optional(detail::hostVector(file, full, size)) : std::nullopt);
      }
      if (m.attentionBiases && !(biases[0] && biases[1] && biases[2]))
        throw InvalidArgument(p + "attn_q.bias", "a " + m.architecture + " model needs q, k and v biases");
      if (weights.qkv && (biases[0] || biases[1] || biases[2])) {  // stacked too, zeros where one is absent
        std::vector<float> stacked;
        for (std::size_t i = 0; i < 3; ++i)
          if (biases[i])
            stacked.insert(stacked.end(), biases[i]->begin(), biases[i]->end());
          else
            stacked.resize(stacked.size() + static_cast<std::size_t>(i == 0 ? q : kv), 0.0f);
        weights.qkvBias = ctx.tensor({q + 2 * kv}, stacked);
      } else if (!weights.qkv) {
        for (const auto& [bias, i, size] :
             {std::tuple{&weights.qBias, 0, q}, {&weights.kBias, 1, kv}, {&weights.vBias, 2, kv}})
          if (biases[static_cast<std::size_t>(i)]) *bias = ctx.tensor({size}, *biases[static_cast<std::size_t>(i)]);
      }
      if (m.headNorms) {
        weights.qNorm = detail::deviceVector(ctx, file, p + "attn_q_norm.weight", m.headDim);
        weights.kNorm = detail::deviceVector(ctx, file, p + "attn_k_norm.weight", m.headDim);
      }
      const auto vector = [&](const std::string& name) {
        return detail::deviceVector(ctx, file, p + name, m.modelDim);
      };
      layers.push_back({vector("attn_norm.weight"), vector("ffn_norm.weight"),
                        m.postNorms ? vector("post_attention_norm.weight") : Tensor(),
                        m.postNorms ? vector("post_ffw_norm.weight") : Tensor(),
                        MultiHeadAttention(ctx, m.slides(i) ? sliding : global, std::move(weights)),
                        detail::GatedProjections(ctx, file, p + "ffn_gate.weight", p + "ffn_up.weight", m.ffnDim,
                                                 m.modelDim, maxBytes),
                        blocks(p + "ffn_down.weight", m.modelDim, m.ffnDim)});
    }
    outputNorm = detail::deviceVector(ctx, file, "output_norm.weight", m.modelDim);
    output = blocks(m.tiedOutput ? "token_embd.weight" : "output.weight", m.vocab, m.modelDim);
    embedding.placeOnDevice(ctx, m.tiedOutput && output.blocks() == 1 ? &output.first() : nullptr, maxBytes);
  }

  std::vector<KeyValueCache> caches(int64_t capacity) const {
    std::vector<KeyValueCache> out;
    for (const DecoderLayer& layer : layers) out.push_back(layer.attention.makeCache(ctx, 1, capacity, kvFormat));
    return out;
  }

  TensorView rmsNorm(const TensorView& x, const Tensor& weight) {
    const TensorView y = ctx.scratch(x.shape);
    vkattn::rmsNorm(ctx, x, y, {.weight = weight.view(), .eps = config.normEps});
    return y;
  }

  // A pre-norm's output as the products after it read it: x itself with the norm folded into
  // them where `reader`'s kernel normalizes as it loads (a decoded token's matrix-vector products:
  // no dispatch of its own), else the normalized copy.
  struct NormedInput {
    TensorView x;
    std::optional<InputRmsNorm> norm;
  };
  NormedInput preNorm(const TensorView& x, const Tensor& weight, const TensorView& reader) {
    if (normalizesInProduct(ctx, x, reader)) return {x, InputRmsNorm{weight.view(), config.normEps}};
    return {rmsNorm(x, weight), std::nullopt};
  }

  // The next token drawn on the device, in the forward pass's own submission: ids ([1], int32)
  // receives it (or -1 where sampleTokens leaves the draw to the host).
  struct DeviceDraw {
    const Tensor& ids;
    TokenDraw draw;
    float uniform = 0.0f;
  };

  // A decoded token's inputs on the device, for a step recorded once and replayed: the token
  // ([1, 1] i32), its position ([1] i32, also the caches' row it fills), the caches' length after
  // it ([1] i32) and the draw's uniform number ([1] f32), each in host-visible memory the host
  // writes before every run.
  struct StepInputs {
    explicit StepInputs(const Context& ctx)
        : token(ctx.device(), 4, BufferUsage::HostStorage),
          position(ctx.device(), 4, BufferUsage::HostStorage),
          length(ctx.device(), 4, BufferUsage::HostStorage),
          uniform(ctx.device(), 4, BufferUsage::HostStorage) {}
    Buffer token, position, length, uniform;
    TensorView tokenView() const { return {&token, DType::I32, {1, 1}, {1, 1}, 0}; }
    TensorView positionView() const { return {&position, DType::I32, {1}, {1}, 0}; }
    TensorView lengthView() const { return {&length, DType::I32, {1}, {1}, 0}; }
    TensorView uniformView() const { return {&uniform, DType::F32, {1}, {1}, 0}; }
    void write(int32_t id, int64_t at, float u) {
      const auto pos = static_cast<int32_t>(at), len = static_cast<int32_t>(at + 1);
      token.write(&id, 4);
      position.write(&pos, 4);
      length.write(&len, 4);
      uniform.write(&u, 4);
    }
  };

  // Feeds ids at the caches' next positions and writes the logits of the last `logitRows` rows
  // (0: none) into logits [logitRows, vocab]; maps (one per layer) receive [1, heads, L,
  // positions]; `next` (with logitRows 1) draws the next token from them.
  // With `step`, the token, positions, caches' length and draw come from the device (ids then
  // holds one token, for its count): a step to record once and replay.
  void forward(std::span<const int32_t> ids, std::vector<KeyValueCache>& caches, int64_t logitRows,
               const Tensor& logits, std::vector<Tensor>* maps, const DeviceDraw* next = nullptr,
               const StepInputs* step = nullptr) {
    const auto length = static_cast<int64_t>(ids.size());
    const int64_t d = config.modelDim;
    Batch batch(ctx);
    TensorView x = step ? embedStep(*step) : embed(ids);
    std::optional<TensorView> positions, keyLengths;
    if (step) positions = step->positionView(), keyLengths = step->lengthView();
    for (std::size_t l = 0; l < layers.size(); ++l) {
      DecoderLayer& layer = layers[l];
      const NormedInput h = preNorm(x, layer.attentionNorm, layer.attention.qWeight());
      const TensorView attended = ctx.scratch(x.shape);
      Tensor* map = maps ? &(*maps)[l] : nullptr;
      if (config.postNorms) {  // x + norm(attention): the residual joins the norm, not o
        layer.attention.selfAttend(
            ctx, h.x, caches[l], attended,
            {.causal = true,
             .keyLengths = keyLengths,
             .postNorm = PostNormStep{layer.postAttentionNorm.view(), static_cast<float>(config.normEps), x},
             .weights = map,
             .inputNorm = h.norm,
             .positions = positions});
      } else {
        layer.attention.selfAttend(ctx, h.x, caches[l], attended,
                                   {.causal = true,
                                    .keyLengths = keyLengths,
                                    .residual = x,
                                    .weights = map,
                                    .inputNorm = h.norm,
                                    .positions = positions});
      }
      const NormedInput h2 = preNorm(attended, layer.ffnNorm, layer.gateUp.first());
      const TensorView gate = ctx.scratch({1, length, config.ffnDim});
      layer.gateUp.apply(ctx, h2.x, gate, config.gateActivation, h2.norm);
      const TensorView y = ctx.scratch(x.shape);
      if (config.postNorms) {
        layer.down.apply(ctx, gate, y, std::nullopt, std::nullopt,
                         PostNormStep{layer.postFfnNorm.view(), static_cast<float>(config.normEps), attended});
      } else {
        layer.down.apply(ctx, gate, y, attended);
      }
      x = y;
    }
    if (logitRows == 0) {  // a prompt's leading chunk: its keys and values are what it leaves
      batch.submit();
      return;
    }
    // The last logitRows rows of t, as [logitRows, d] (linear takes a slice of rows).
    const auto lastRows = [&](const TensorView& t) {
      return TensorView{t.buffer, t.dtype, {logitRows, d}, {d, 1}, t.offset + (length - logitRows) * d};
    };
    if (normalizesInProduct(ctx, lastRows(x), output.first()))
      output.apply(ctx, lastRows(x), logits, std::nullopt, InputRmsNorm{outputNorm.view(), config.normEps});
    else
      output.apply(ctx, lastRows(rmsNorm(x, outputNorm)), logits);
    if (next && next->draw.temperature == 0.0f) {
      // The final softcap (Gemma 2) is monotonic: the uncapped logits' argmax is the capped ones'.
      vkattn::argmax(ctx, logits, next->ids);
    } else if (next && step) {
      vkattn::sampleTokens(ctx, logits, step->uniformView(), next->ids, next->draw);
    } else if (next) {
      const Buffer& u = ctx.recorder().upload(&next->uniform, sizeof(float), "the draw's uniform number");
      vkattn::sampleTokens(ctx, logits, TensorView{&u, DType::F32, {1}, {1}, 0}, next->ids, next->draw);
    }
    batch.submit();
  }

  // The tokens' rows of the embedding table, scaled ([1, L, d] f32): gathered on the device where
  // the table is there (the ids uploaded, 4 bytes each), else decoded on the host and uploaded.
  TensorView embed(std::span<const int32_t> ids) {
    const auto length = static_cast<int64_t>(ids.size());
    const Shape shape{1, length, config.modelDim};
    if (const Tensor* table = embedding.deviceTable()) {
      const Buffer& idBuffer = ctx.recorder().upload(ids.data(), ids.size_bytes(), "token ids");
      const TensorView x = ctx.scratch(shape);
      vkattn::embedding(ctx, table->view(), TensorView{&idBuffer, DType::I32, {1, length}, {length, 1}, 0}, x,
                        {.scale = static_cast<float>(config.embeddingScale)});
      return x;
    }
    std::vector<float> rows = embedding.rows(ids);
    if (config.embeddingScale != 1.0)
      for (float& v : rows) v = static_cast<float>(v * config.embeddingScale);
    const Buffer& embedded = ctx.recorder().upload(rows.data(), rows.size() * sizeof(float), "token embeddings");
    return TensorView{&embedded, DType::F32, shape, contiguousStrides(shape), 0};
  }

  // A replayed step's token row, gathered from the device table by the token the host wrote.
  TensorView embedStep(const StepInputs& step) {
    const TensorView x = ctx.scratch({1, 1, config.modelDim});
    vkattn::embedding(ctx, embedding.deviceTable()->view(), step.tokenView(), x,
                      {.scale = static_cast<float>(config.embeddingScale)});
    return x;
  }

  // The output logits as the model defines them: with the final softcap (Gemma 2) applied on the
  // host, to the few rows a step downloads.
  std::vector<float> finalLogits(std::vector<float> rows) const {
    const double c = config.finalSoftcap;
    if (c > 0)
      for (float& v : rows) v = static_cast<float>(c * std::tanh(v / c));
    return rows;
  }

  void requireIds(std::span<const int32_t> ids, const char* name) const {
    if (ids.empty()) throw InvalidArgument(name, "holds no tokens");
    for (int32_t id : ids)
      if (id < 0 || id >= config.vocab)
        throw InvalidArgument(name, "token " + std::to_string(id) + " is outside the vocabulary [0, " +
                                        std::to_string(config.vocab) + ")");
    if (static_cast<int64_t>(ids.size()) > context)
      throw InvalidArgument(
          name, std::to_string(ids.size()) + " tokens exceed the context length " + std::to_string(context));
  }

  std::vector<float> logits(std::span<const int32_t> ids) {
    requireIds(ids, "ids");
    const auto length = static_cast<int64_t>(ids.size());
    std::vector<KeyValueCache> fresh = caches(length);
    Tensor out = ctx.tensor({length, config.vocab});
    forward(ids, fresh, length, out, nullptr);
    return finalLogits(out.download());
  }

  Generation generate(std::span<const int32_t> prompt, const GenerateOptions& options) {
    requireIds(prompt, "prompt");
    if (options.maxTokens < 0) throw InvalidArgument("maxTokens", "must be >= 0");
    if (options.promptChunk < 1) throw InvalidArgument("promptChunk", "must be >= 1");
    TokenSampler sampler(options.sampler);
    Generation result;
    result.promptIds.assign(prompt.begin(), prompt.end());
    const int64_t capacity = std::min(context, static_cast<int64_t>(prompt.size()) + options.maxTokens);
    std::vector<KeyValueCache> kv = caches(capacity);
    Tensor logits = ctx.tensor({1, config.vocab});
    // Without the logits asked for, the next token is drawn on the device (the argmax, or
    // sampleTokens with the sampler's next number): 4 bytes read back instead of the vocabulary's
    // logits, which are read only where the draw lands beyond the device's candidates.
    const bool tokenOnDevice = !options.logits;
    Tensor drawn = ctx.tensor({1}, DType::I32);
    const TokenDraw draw{options.sampler.temperature, options.sampler.topK, options.sampler.topP,
                         static_cast<float>(config.finalSoftcap)};
    std::vector<Tensor> maps(layers.size());
    const bool hostMaps = options.attention && !options.attentionOnDevice;
    if (hostMaps)
      for (std::size_t l = 0; l < layers.size(); ++l)
        result.attention.push_back({config.heads, capacity, capacity,
                                    std::vector<float>(static_cast<std::size_t>(config.heads * capacity * capacity))});
    const int32_t eos = tokenizer->vocabulary().eos;

    std::vector<int32_t> feed(prompt.begin(), prompt.end());
    int64_t position = 0;
    // Decoded tokens replay one recording (GenerateOptions::replay) where the embedding table is
    // on the device and no attention maps are asked for.
    bool replayable = options.replay && !options.attention && embedding.deviceTable() != nullptr;
    for (std::size_t l = 0; l < layers.size(); ++l)
      replayable = replayable && layers[l].attention.replaysSelfAttention(kv[l]);
    std::optional<StepInputs> stepInputs;
    std::unique_ptr<Replay> replay;
    const auto start = std::chrono::steady_clock::now();
    auto afterPrompt = start;
    uint64_t waitedAfterPrompt = ctx.device().waitedNs();
    result.end = GenerationEnd::MaxTokens;
    while (true) {  // the prompt, then one sampled token per step
      const bool drawing = static_cast<int64_t>(result.ids.size()) < options.maxTokens;
      const double u = drawing && options.sampler.temperature > 0.0f ? sampler.nextUniform() : 0.0;
      // u as a float below 1 (rounding to float may not reach 1).
      const DeviceDraw deviceDraw{drawn, draw, std::min(static_cast<float>(u), std::nextafter(1.0f, 0.0f))};
      // A prompt longer than a chunk: its leading chunks fill the caches first (one pass where its
      // attention is asked for, so that the step's maps cover it).
      std::span<const int32_t> fed(feed);
      while (position == 0 && !options.attention && static_cast<int64_t>(fed.size()) > options.promptChunk) {
        forward(fed.first(static_cast<std::size_t>(options.promptChunk)), kv, 0, logits, nullptr);
        fed = fed.subspan(static_cast<std::size_t>(options.promptChunk));
      }
      // A decoded token: one run of the step recorded at the first one, where the model allows it.
      const bool decodeStep = position > 0 && fed.size() == 1;
      if (decodeStep && replayable && !replay) {
        stepInputs.emplace(ctx);
        stepInputs->write(fed[0], position, deviceDraw.uniform);
        replay = std::make_unique<Replay>(ctx);
        replay->record(
            [&] { forward(fed, kv, 1, logits, nullptr, tokenOnDevice ? &deviceDraw : nullptr, &*stepInputs); });
      }
      if (decodeStep && replay) {
        stepInputs->write(fed[0], position, deviceDraw.uniform);
        replay->submit();
      } else {
        forward(fed, kv, 1, logits, options.attention ? &maps : nullptr,
                tokenOnDevice && drawing ? &deviceDraw : nullptr);
      }
      const std::vector<float> row = tokenOnDevice ? std::vector<float>() : finalLogits(logits.download());
      if (position == 0) {
        afterPrompt = std::chrono::steady_clock::now();
        waitedAfterPrompt = ctx.device().waitedNs();
        result.promptSeconds = std::chrono::duration<double>(afterPrompt - start).count();
      }
      if (options.logits) result.logits.insert(result.logits.end(), row.begin(), row.end());
      GenerationStep step{position, feed, {}};
      if (hostMaps)
        for (std::size_t l = 0; l < layers.size(); ++l) {
          step.attention.push_back(downloadMap(maps[l]));
          placeRows(result.attention[l], step.attention.back(), position);
        }
      else if (options.attention)
        step.weights = std::exchange(maps, std::vector<Tensor>(layers.size()));
      position += static_cast<int64_t>(feed.size());
      if (static_cast<int64_t>(result.ids.size()) >= options.maxTokens) {  // maxTokens 0: the prompt alone
        step.next = -1;
        if (options.onStep) options.onStep(step);
        break;
      }
      int32_t next = tokenOnDevice ? drawn.downloadInt().front() : drawToken(row, options.sampler, u);
      if (next < 0) next = drawToken(finalLogits(logits.download()), options.sampler, u);
      step.next = next;
      result.ids.push_back(next);
      const bool more = !options.onStep || options.onStep(step);
      if (next == eos && !options.ignoreEos) {
        result.endOfSequence = true;
        result.end = GenerationEnd::EndOfSequence;
        break;
      }
      if (!more) {
        result.end = GenerationEnd::Stopped;
        break;
      }
      if (static_cast<int64_t>(result.ids.size()) >= options.maxTokens) break;
      if (position >= capacity) {
        result.end = GenerationEnd::ContextFull;
        break;
      }
      feed.assign(1, next);
    }
    result.generateSeconds = secondsSince(afterPrompt);
    result.generateWaitSeconds = static_cast<double>(ctx.device().waitedNs() - waitedAfterPrompt) * 1e-9;
    for (AttentionMap& map : result.attention) map = cropped(map, position);
    result.text = tokenizer->decode(result.ids, {.continuation = true});
    return result;
  }

  // Copies a step's rows [heads, rows, cols] into a [heads, n, n] map at row `first`.
  static void placeRows(AttentionMap& map, const AttentionMap& rows, int64_t first) {
    for (int64_t h = 0; h < rows.heads; ++h)
      for (int64_t r = 0; r < rows.rows; ++r)
        std::copy_n(rows.weights.begin() + (h * rows.rows + r) * rows.cols, rows.cols,
                    map.weights.begin() + (h * map.rows + first + r) * map.cols);
  }

  // The leading [heads, n, n] of a square map.
  static AttentionMap cropped(const AttentionMap& map, int64_t n) {
    AttentionMap out{map.heads, n, n, std::vector<float>(static_cast<std::size_t>(map.heads * n * n))};
    for (int64_t h = 0; h < map.heads; ++h)
      for (int64_t r = 0; r < n; ++r)
        std::copy_n(map.weights.begin() + (h * map.rows + r) * map.cols, n, out.weights.begin() + (h * n + r) * n);
    return out;
  }
};

LanguageModel::LanguageModel(Context& ctx, const std::filesystem::path& gguf, const LanguageModelOptions& options)
    : m_impl(std::make_unique<Impl>(ctx, gguf, options)) {}
LanguageModel::~LanguageModel() = default;
LanguageModel::LanguageModel(LanguageModel&&) noexcept = default;

const LanguageModelConfig& LanguageModel::config() const noexcept {
  return m_impl->config;
}
const TextTokenizer& LanguageModel::tokenizer() const noexcept {
  return *m_impl->tokenizer;
}
int64_t LanguageModel::contextLength() const noexcept {
  return m_impl->context;
}

std::string LanguageModel::contextWarning() const {
  const int64_t trained = m_impl->config.contextLength;
  if (m_impl->context <= trained) return {};
  return "the context of " + std::to_string(m_impl->context) + " positions exceeds the " + std::to_string(trained) +
         " this model was trained on: text past position " + std::to_string(trained) + " may turn to noise";
}

const char* toString(GenerationEnd end) noexcept {
  switch (end) {
    case GenerationEnd::EndOfSequence:
      return "end_of_sequence";
    case GenerationEnd::MaxTokens:
      return "max_tokens";
    case GenerationEnd::ContextFull:
      return "context_full";
    case GenerationEnd::Stopped:
      return "stopped";
  }
  return "?";
}

std::vector<float> LanguageModel::logits(std::span<const int32_t> ids) {
  return m_impl->logits(ids);
}

Perplexity LanguageModel::perplexity(std::string_view text, int64_t context) {
  const auto start = std::chrono::steady_clock::now();
  if (context < 0) throw InvalidArgument("context", std::to_string(context) + " must be >= 0");
  if (context == 0) context = m_impl->context;
  if (context < 4 || context > m_impl->context)
    throw InvalidArgument(
        "context", std::to_string(context) + " must be in 4 .. the model's context " + std::to_string(m_impl->context));
  const std::vector<int32_t> tokens = m_impl->tokenizer->encode(text, {.addSpecial = true, .parseSpecial = false});
  if (static_cast<int64_t>(tokens.size()) < 2 * context)
    throw InvalidArgument("text", std::to_string(tokens.size()) + " tokens; a perplexity over chunks of " +
                                      std::to_string(context) + " needs at least " + std::to_string(2 * context));
  const TokenVocabulary& words = m_impl->tokenizer->vocabulary();
  const int32_t bos = words.addBos ? words.bos : kNoToken;  // as llama-perplexity: bos opens every chunk
  const int64_t vocab = m_impl->config.vocab;
  Perplexity out;
  out.context = context;
  out.chunks = static_cast<int64_t>(tokens.size()) / context;
  double nll = 0;
  for (int64_t c = 0; c < out.chunks; ++c) {
    std::vector<int32_t> chunk(tokens.begin() + c * context, tokens.begin() + (c + 1) * context);
    if (bos >= 0) chunk[0] = bos;
    const std::vector<float> rows = m_impl->logits(chunk);
    for (int64_t j = context / 2; j < context - 1; ++j) {
      const float* row = rows.data() + j * vocab;
      const double top = *std::max_element(row, row + vocab);
      double sum = 0;
      for (int64_t v = 0; v < vocab; ++v) sum += std::exp(static_cast<double>(row[v]) - top);
      const auto next = static_cast<std::size_t>(tokens[static_cast<std::size_t>(c * context + j + 1)]);
      nll += std::log(sum) + top - static_cast<double>(row[next]);
      ++out.scored;
    }
  }
  out.meanNll = nll / static_cast<double>(out.scored);
  out.perplexity = std::exp(out.meanNll);
  out.seconds = secondsSince(start);
  return out;
}

Generation LanguageModel::generate(std::string_view prompt, const GenerateOptions& options) {
  const std::vector<int32_t> ids =
      m_impl->tokenizer->encode(prompt, {.addSpecial = true, .parseSpecial = options.parseSpecial});
  return m_impl->generate(ids, options);
}

Generation LanguageModel::generate(std::span<const int32_t> promptIds, const GenerateOptions& options) {
  return m_impl->generate(promptIds, options);
}

}  // namespace vkattn
