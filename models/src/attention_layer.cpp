#include "vkattn/models/attention_layer.hpp"

#include <string>
#include <vector>

#include "vkattn/core/error.hpp"
#include "vkattn/core/storage_formats.hpp"
#include "vkattn/ops/attention.hpp"
#include "vkattn/ops/encode_storage.hpp"
#include "vkattn/ops/linear.hpp"
#include "vkattn/ops/row_ops.hpp"

namespace vkattn {
namespace {

// [L, d] -> [1, L, d]; [B, L, d] as is.
TensorView batched(const std::string& name, const TensorView& v, int64_t modelDim) {
  if (!v.buffer) throw InvalidArgument(name, "is empty");
  if (v.dtype != DType::F32) throw InvalidArgument(name, "must be f32, got " + std::string(toString(v.dtype)));
  if (!v.contiguous()) throw InvalidArgument(name, "must be contiguous");
  if (v.rank() < 2 || v.rank() > 3 || v.dim(-1) != modelDim)
    throw InvalidArgument(name, "must be [L, " + std::to_string(modelDim) + "] or [B, L, " + std::to_string(modelDim) +
                                    "], got " + toString(v.shape));
  return v.rank() == 3 ? v : v.reshaped({1, v.dim(0), v.dim(1)});
}

void requireWeight(const char* name, const Tensor& w, int64_t rows, int64_t cols) {
  if (w.shape() != Shape{rows, cols})
    throw InvalidArgument(
        name, "must be [" + std::to_string(rows) + ", " + std::to_string(cols) + "], got " + toString(w.shape()));
}

void requireBias(const char* name, const std::optional<Tensor>& b, int64_t size) {
  if (b && b->shape() != Shape{size})
    throw InvalidArgument(name, "must be [" + std::to_string(size) + "], got " + toString(b->shape()));
}

LinearOptions withBias(const std::optional<TensorView>& bias, const std::optional<InputRmsNorm>& inputNorm = {}) {
  return {.bias = bias, .inputNorm = inputNorm};
}

// [B, L, heads*headDim] seen as [B, heads, L, headDim].
TensorView headsView(const TensorView& rows, int64_t heads, int64_t headDim) {
  TensorView v = rows;
  const int64_t b = rows.dim(0), l = rows.dim(1);
  v.shape = {b, l, heads, headDim};
  v.strides = {rows.strides[0], rows.strides[1], headDim, 1};
  return v.permuted({0, 2, 1, 3});
}

// Sequence b's rows of a [B, L, W] view whose rows are contiguous, as one flat run of elements.
TensorView sequenceRows(const TensorView& rows, int64_t b) {
  return {rows.buffer, rows.dtype, {rows.dim(1) * rows.dim(2)}, {1}, rows.offset + b * rows.strides[0]};
}

// RMSNorm of every head of rows [B, L, heads * headDim] in place, each headDim-long run scaled by
// weight [headDim] (Qwen3's q and k norms).
void normalizeHeads(Context& ctx, const TensorView& rows, const Tensor& weight, int64_t headDim, float eps) {
  const RmsNormOptions options{.weight = weight.view(), .eps = eps};
  if (rows.contiguous()) {
    const TensorView flat = rows.reshaped({rows.numel() / headDim, headDim});
    rmsNorm(ctx, flat, flat, options);
    return;
  }
  for (int64_t b = 0; b < rows.dim(0); ++b) {  // per sequence: each one's rows are contiguous
    const TensorView flat = sequenceRows(rows, b).reshaped({rows.dim(1) * rows.dim(2) / headDim, headDim});
    rmsNorm(ctx, flat, flat, options);
  }
}

// Dimension 1 of a [B, H, ...] view dropped at index `index`: [B, ...].
TensorView headOf(const TensorView& v, int64_t index) {
  TensorView out = v.sliced(1, index, 1);
  out.shape.erase(out.shape.begin() + 1);
  out.strides.erase(out.strides.begin() + 1);
  return out;
}

// True when a mask or bias differs per head: the fused kernel binds masks whole, so it cannot
// take one head of such a mask.
bool perHead(const std::optional<TensorView>& mask) {
  return mask && mask->rank() >= 3 && mask->dim(-3) > 1;
}

// Attention into `out` [B, Hq, L, D] whose probabilities of `heads` (all when empty) are also
// returned, [B, heads.size(), Lq, Lk]: those heads' scores are computed and normalised once, into
// the returned tensor, and their context is those probabilities times V; the other heads take the
// fused kernel one head at a time, which never writes its probabilities. No head's q·kᵀ is
// computed twice. A subset under a mask or bias that differs per head is Unsupported (the fused
// kernel cannot take one head of it).
Tensor attentionKeepingWeights(Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                               const TensorView& out, const std::vector<int64_t>& heads,
                               const AttentionOptions& options) {
  const int64_t headsQ = q.dim(1), group = headsQ / k.dim(1);
  std::vector<int64_t> chosen = heads;
  if (chosen.empty())
    for (int64_t h = 0; h < headsQ; ++h) chosen.push_back(h);
  std::vector<bool> kept(static_cast<std::size_t>(headsQ), false);
  for (int64_t h : chosen) {
    if (h < 0 || h >= headsQ)
      throw InvalidArgument("weightHeads",
                            "head " + std::to_string(h) + " outside [0, " + std::to_string(headsQ) + ")");
    if (kept[static_cast<std::size_t>(h)])
      throw InvalidArgument("weightHeads", "names head " + std::to_string(h) + " twice");
    kept[static_cast<std::size_t>(h)] = true;
  }
  std::vector<int64_t> others;
  for (int64_t h = 0; h < headsQ; ++h)
    if (!kept[static_cast<std::size_t>(h)]) others.push_back(h);
  if (!others.empty() && (perHead(options.keepMask) || perHead(options.bias)))
    throw Unsupported(
        "argument 'weightHeads': a subset of the heads under a keepMask or bias that differs per "
        "head; ask for every head's weights");
  Batch run(ctx);
  Tensor weights = attentionWeights(ctx, q, k, chosen, options);
  for (std::size_t i = 0; i < chosen.size(); ++i)  // [B, Lq, Lk] x [B, Lk, D] -> [B, Lq, D]
    matmul(ctx, headOf(weights.view(), static_cast<int64_t>(i)), headOf(v, chosen[i] / group), headOf(out, chosen[i]));
  for (int64_t h : others) {
    const int64_t kv = h / group;
    attention(ctx, q.sliced(1, h, 1), k.sliced(1, kv, 1), v.sliced(1, kv, 1), out.sliced(1, h, 1), options);
  }
  run.submit();
  return weights;
}

}  // namespace

KeyValueCache::KeyValueCache(int64_t batch, int64_t capacity, int64_t kvHeads, int64_t headDim)
    : m_batch(batch), m_capacity(capacity), m_kvHeads(kvHeads), m_headDim(headDim) {
  if (batch < 1) throw InvalidArgument("batch", "must be at least 1");
  if (capacity < 1) throw InvalidArgument("capacity", "must be at least 1");
}

KeyValueCache::KeyValueCache(const Context& ctx, int64_t batch, int64_t capacity, int64_t kvHeads, int64_t headDim,
                             DType format)
    : KeyValueCache(batch, capacity, kvHeads, headDim) {
  if (format != DType::F32 && !isKvStorageFormat(format))
    throw InvalidArgument("format", std::string(toString(format)) +
                                        " is not a K/V cache format (f32, bf16, q8_0, "
                                        "q4_0)");
  if (headDim % blockElements(format) != 0)
    throw InvalidArgument("format", std::string(toString(format)) + " needs a head dim (" + std::to_string(headDim) +
                                        ") that is a multiple of " + std::to_string(blockElements(format)));
  m_ownedKeys = std::make_unique<Tensor>(ctx.tensor({batch, capacity, kvHeads * headDim}, format));
  m_ownedValues = std::make_unique<Tensor>(ctx.tensor({batch, capacity, kvHeads * headDim}, format));
  m_keys = m_ownedKeys->view();
  m_values = m_ownedValues->view();
}

KeyValueCache KeyValueCache::scratch(Context& ctx, int64_t batch, int64_t capacity, int64_t kvHeads, int64_t headDim) {
  KeyValueCache cache(batch, capacity, kvHeads, headDim);
  cache.m_keys = ctx.scratch({batch, capacity, kvHeads * headDim});
  cache.m_values = ctx.scratch({batch, capacity, kvHeads * headDim});
  return cache;
}

TensorView KeyValueCache::rows(const TensorView& t, int64_t start, int64_t count) {
  return t.sliced(1, start, count);
}

TensorView KeyValueCache::keys() const {
  return headsView(rows(m_keys, 0, m_length), m_kvHeads, m_headDim);
}
TensorView KeyValueCache::values() const {
  return headsView(rows(m_values, 0, m_length), m_kvHeads, m_headDim);
}

MultiHeadAttention::MultiHeadAttention(const Context&, const AttentionLayerConfig& config,
                                       AttentionLayerWeights weights)
    : m_config(config), m_weights(std::move(weights)) {
  if (m_config.modelDim < 1) throw InvalidArgument("modelDim", "must be positive");
  if (m_config.heads < 1) throw InvalidArgument("heads", "must be positive");
  if (m_config.kvHeads == 0) m_config.kvHeads = m_config.heads;
  if (m_config.window < 0) throw InvalidArgument("window", std::to_string(m_config.window) + " must be >= 0");
  if (m_config.kvHeads < 1 || m_config.heads % m_config.kvHeads != 0)
    throw InvalidArgument(
        "kvHeads", std::to_string(m_config.kvHeads) + " does not divide heads " + std::to_string(m_config.heads));
  if (m_config.headDim == 0) {
    if (m_config.modelDim % m_config.heads != 0)
      throw InvalidArgument(
          "heads", std::to_string(m_config.heads) + " does not divide modelDim " + std::to_string(m_config.modelDim));
    m_config.headDim = m_config.modelDim / m_config.heads;
  }
  const int64_t d = m_config.modelDim, q = m_config.heads * m_config.headDim, kv = m_config.kvHeads * m_config.headDim;
  if (m_weights.qkv) {
    requireWeight("qkv", *m_weights.qkv, q + 2 * kv, d);
    requireBias("qkvBias", m_weights.qkvBias, q + 2 * kv);
    for (const auto& [name, w] : {std::pair{"q", &m_weights.q}, {"k", &m_weights.k}, {"v", &m_weights.v}})
      if (!w->shape().empty()) throw InvalidArgument(name, "must be empty when q, k and v are stacked in qkv");
    for (const auto& [name, b] :
         {std::pair{"qBias", &m_weights.qBias}, {"kBias", &m_weights.kBias}, {"vBias", &m_weights.vBias}})
      if (*b) throw InvalidArgument(name, "must be absent when q, k and v are stacked in qkv (give qkvBias)");
  } else {
    if (m_weights.qkvBias) throw InvalidArgument("qkvBias", "needs q, k and v stacked in qkv");
    requireWeight("q", m_weights.q, q, d);
    requireWeight("k", m_weights.k, kv, d);
    requireWeight("v", m_weights.v, kv, d);
  }
  requireWeight("o", m_weights.o, d, q);
  requireBias("qBias", m_weights.qBias, q);
  requireBias("kBias", m_weights.kBias, kv);
  requireBias("vBias", m_weights.vBias, kv);
  requireBias("oBias", m_weights.oBias, d);
  requireBias("qNorm", m_weights.qNorm, m_config.headDim);
  requireBias("kNorm", m_weights.kNorm, m_config.headDim);
}

TensorView MultiHeadAttention::projection(int64_t first, int64_t rows, const Tensor& own) const {
  return m_weights.qkv ? m_weights.qkv->view().sliced(0, first, rows) : own.view();
}

std::optional<TensorView> MultiHeadAttention::projectionBias(int64_t first, int64_t rows,
                                                             const std::optional<Tensor>& own) const {
  if (m_weights.qkvBias) return m_weights.qkvBias->view().sliced(0, first, rows);
  if (own) return own->view();
  return std::nullopt;
}

TensorView MultiHeadAttention::qWeight() const {
  return projection(0, m_config.heads * m_config.headDim, m_weights.q);
}
TensorView MultiHeadAttention::kWeight() const {
  return projection(m_config.heads * m_config.headDim, m_config.kvHeads * m_config.headDim, m_weights.k);
}
TensorView MultiHeadAttention::vWeight() const {
  return projection((m_config.heads + m_config.kvHeads) * m_config.headDim, m_config.kvHeads * m_config.headDim,
                    m_weights.v);
}

KeyValueCache MultiHeadAttention::makeCache(const Context& ctx, int64_t batch, int64_t capacity, DType format) const {
  return KeyValueCache(ctx, batch, capacity, m_config.kvHeads, m_config.headDim, format);
}

void MultiHeadAttention::append(Context& ctx, const TensorView& sourceIn, KeyValueCache& cache,
                                const std::optional<InputRmsNorm>& inputNorm) {
  const TensorView source = batched("source", sourceIn, m_config.modelDim);
  const int64_t batch = source.dim(0), count = source.dim(1);
  if (cache.m_kvHeads != m_config.kvHeads || cache.m_headDim != m_config.headDim)
    throw InvalidArgument("cache", "was made for another layer shape");
  if (batch != cache.m_batch)
    throw InvalidArgument(
        "source", "batch " + std::to_string(batch) + " differs from the cache's " + std::to_string(cache.m_batch));
  if (cache.m_length + count > cache.m_capacity)
    throw InvalidArgument("source", std::to_string(count) + " more positions overflow the cache (" +
                                        std::to_string(cache.m_length) + " of " + std::to_string(cache.m_capacity) +
                                        " used)");
  const int64_t start = cache.m_length;
  const bool encoded = cache.format() != DType::F32;
  if (m_weights.kNorm && !m_config.rope && !encoded)
    throw Unsupported(
        "kNorm: head norms of keys appended to an f32 cache need RoPE (which writes them into the "
        "cache); store the cache as bf16, q8_0 or q4_0, or add rope");
  Batch run(ctx);
  // Projects into the cache's rows, or into f32 rows that are then encoded into them. Normalized
  // keys are projected apart too: the norm runs on rows of their own, RoPE then writes them into
  // the cache.
  const auto project = [&](const TensorView& weight, const std::optional<TensorView>& bias, const TensorView& store,
                           bool rotate) {
    const bool apart = encoded || (rotate && m_weights.kNorm);
    const TensorView rows = apart ? ctx.scratch({batch, count, store.dim(2)}) : cache.rows(store, start, count);
    if (rows.contiguous()) {
      linear(ctx, source, weight, rows, withBias(bias, inputNorm));
    } else {
      for (int64_t b = 0; b < batch; ++b)  // per sequence: each one's rows are contiguous
        linear(ctx, source.sliced(0, b, 1), weight, rows.sliced(0, b, 1), withBias(bias, inputNorm));
    }
    if (rotate && m_weights.kNorm) normalizeHeads(ctx, rows, *m_weights.kNorm, m_config.headDim, m_config.headNormEps);
    if (rotate && m_config.rope) {
      RopeOptions rope = *m_config.rope;
      rope.positionOffset += start;
      const TensorView heads = headsView(rows, m_config.kvHeads, m_config.headDim);
      // In place, or from the normalized rows into the f32 cache.
      const TensorView to =
          apart && !encoded ? headsView(cache.rows(store, start, count), m_config.kvHeads, m_config.headDim) : heads;
      vkattn::rope(ctx, heads, to, rope);
    }
    if (encoded)
      for (int64_t b = 0; b < batch; ++b)
        encodeStorage(ctx, sequenceRows(rows, b), sequenceRows(cache.rows(store, start, count), b));
  };
  const int64_t q = m_config.heads * m_config.headDim, kv = m_config.kvHeads * m_config.headDim;
  project(kWeight(), projectionBias(q, kv, m_weights.kBias), cache.m_keys, true);
  project(vWeight(), projectionBias(q + kv, kv, m_weights.vBias), cache.m_values, false);
  run.submit();
  cache.m_length += count;
}

namespace {

// x [B, L, d] and out checked against each other and the cache (attend and selfAttend).
void checkAttendArguments(const TensorView& x, const TensorView& out, int64_t cacheBatch, bool causal,
                          int64_t cacheLength) {
  if (out.shape != x.shape) throw InvalidArgument("out", "must have x's shape " + toString(x.shape));
  if (x.dim(0) != cacheBatch)
    throw InvalidArgument(
        "x", "batch " + std::to_string(x.dim(0)) + " differs from the cache's " + std::to_string(cacheBatch));
  if (cacheLength == 0) throw InvalidArgument("cache", "holds no keys");
  if (causal && x.dim(1) > cacheLength) throw InvalidArgument("x", "has more causal queries than the cache holds keys");
}

}  // namespace

void MultiHeadAttention::attend(Context& ctx, const TensorView& xIn, const KeyValueCache& cache,
                                const TensorView& outIn, const AttentionLayerCall& call) {
  const TensorView x = batched("x", xIn, m_config.modelDim);
  const TensorView out = batched("out", outIn, m_config.modelDim);
  checkAttendArguments(x, out, cache.m_batch, call.causal, cache.length());
  Batch run(ctx);  // the scratch below lives until this submits
  const TensorView queries = ctx.scratch({x.dim(0), x.dim(1), m_config.heads * m_config.headDim});
  projectQueries(ctx, x, cache, queries, call);
  attendQueries(ctx, headsView(queries, m_config.heads, m_config.headDim), cache, out, outIn, call);
  run.submit();
}

void MultiHeadAttention::projectQueries(Context& ctx, const TensorView& x, const KeyValueCache& cache,
                                        const TensorView& queries, const AttentionLayerCall& call) {
  const int64_t len = x.dim(1);
  linear(ctx, x, qWeight(), queries,
         withBias(projectionBias(0, m_config.heads * m_config.headDim, m_weights.qBias), call.inputNorm));
  if (m_weights.qNorm) normalizeHeads(ctx, queries, *m_weights.qNorm, m_config.headDim, m_config.headNormEps);
  const TensorView q = headsView(queries, m_config.heads, m_config.headDim);
  if (m_config.rope) {
    RopeOptions rope = *m_config.rope;
    rope.positionOffset += cache.length() - len;  // the queries are the newest positions
    vkattn::rope(ctx, q, q, rope);
  }
}

void MultiHeadAttention::attendQueries(Context& ctx, const TensorView& q, const KeyValueCache& cache,
                                       const TensorView& out, const TensorView& outIn, const AttentionLayerCall& call) {
  const int64_t batch = q.dim(0), len = q.dim(2), width = m_config.heads * m_config.headDim;
  AttentionOptions options;
  options.scale = m_config.scale;
  options.softcap = m_config.softcap;
  if (m_config.window > 0) options.windowLeft = m_config.window - 1;
  options.causal = call.causal;
  // A replayed step's queries are the newest of the cache's keyLengths keys, not of its capacity.
  options.alignment = call.positions ? MaskAlignment::BottomRightOfKeyLengths : MaskAlignment::BottomRight;
  options.keepMask = call.keepMask;
  options.bias = call.bias;
  options.keyLengths = call.keyLengths;
  const TensorView context = ctx.scratch({batch, len, width});
  const TensorView contextHeads = headsView(context, m_config.heads, m_config.headDim);
  // A replayed step reads the whole cache, as many keys of it as keyLengths says.
  const TensorView keys = call.positions ? headsView(cache.m_keys, cache.m_kvHeads, cache.m_headDim) : cache.keys();
  const TensorView values =
      call.positions ? headsView(cache.m_values, cache.m_kvHeads, cache.m_headDim) : cache.values();
  if (call.weights)
    *call.weights = attentionKeepingWeights(ctx, q, keys, values, contextHeads, call.weightHeads, options);
  else
    attention(ctx, q, keys, values, contextHeads, options);

  LinearOptions project = withBias(m_weights.oBias ? std::optional<TensorView>(m_weights.oBias->view()) : std::nullopt);
  if (call.residual) {
    if (call.residual->shape != outIn.shape)
      throw InvalidArgument("residual", "must have out's shape " + toString(outIn.shape));
    project.residual = batched("residual", *call.residual, m_config.modelDim);
  }
  if (call.postNorm) {
    if (call.residual) throw InvalidArgument("postNorm", "excludes residual: it adds its own after the norm");
    if (call.postNorm->residual.shape != outIn.shape)
      throw InvalidArgument("postNorm.residual", "must have out's shape " + toString(outIn.shape));
    project.postNorm = *call.postNorm;
    project.postNorm->residual = batched("postNorm.residual", call.postNorm->residual, m_config.modelDim);
  }
  linear(ctx, context, m_weights.o, out, project);
}

bool MultiHeadAttention::replaysSelfAttention(const KeyValueCache& cache) const noexcept {
  return m_weights.qkv && m_config.rope && !m_config.rope->positions && m_config.rope->positionOffset == 0 &&
         m_weights.qNorm.has_value() == m_weights.kNorm.has_value() && cache.format() == DType::F32;
}

void MultiHeadAttention::selfAttend(Context& ctx, const TensorView& xIn, KeyValueCache& cache, const TensorView& outIn,
                                    const AttentionLayerCall& call) {
  const bool fused = m_weights.qkv && m_config.rope && !m_config.rope->positions &&
                     m_weights.qNorm.has_value() == m_weights.kNorm.has_value() && cache.format() == DType::F32;
  if (call.positions && (!replaysSelfAttention(cache) || !call.keyLengths || call.weights))
    throw Unsupported(
        "argument 'positions': a replayed self-attention step needs one q/k/v product, RoPE without a "
        "positions table or offset, an f32 cache, keyLengths and no attention weights");
  if (!fused) {
    Batch run(ctx);
    append(ctx, xIn, cache, call.inputNorm);
    attend(ctx, xIn, cache, outIn, call);
    run.submit();
    return;
  }
  const TensorView x = batched("x", xIn, m_config.modelDim);
  const TensorView out = batched("out", outIn, m_config.modelDim);
  const int64_t batch = x.dim(0), len = x.dim(1), start = cache.m_length;
  if (cache.m_kvHeads != m_config.kvHeads || cache.m_headDim != m_config.headDim)
    throw InvalidArgument("cache", "was made for another layer shape");
  if (start + len > cache.m_capacity)
    throw InvalidArgument("x", std::to_string(len) + " more positions overflow the cache (" + std::to_string(start) +
                                   " of " + std::to_string(cache.m_capacity) + " used)");
  checkAttendArguments(x, out, cache.m_batch, call.causal, start + len);
  const int64_t heads = m_config.heads, kvHeads = m_config.kvHeads, dim = m_config.headDim;
  Batch run(ctx);
  // One product for q, k and v: rows [B, L, (heads + 2 kvHeads) dim]; then RoPE on q in place
  // and on k into the cache, v copied into the cache: in the product's own dispatch for a decoded
  // token (LinearOptions::ropeAppend), else one dispatch after it.
  const TensorView rows = ctx.scratch({batch, len, (heads + 2 * kvHeads) * dim});
  const auto part = [&](int64_t first, int64_t count) {
    return headsView(rows.sliced(2, first * dim, count * dim), count, dim);
  };
  RopeOptions rope = *m_config.rope;
  rope.positionOffset += start;
  if (call.positions) {  // the positions, and the cache rows they fill, from the device
    rope.positionOffset = 0;
    rope.positions = *call.positions;
  }
  const auto cacheRows = [&](const TensorView& t) {
    return headsView(call.positions ? t : cache.rows(t, start, len), kvHeads, dim);
  };
  const TensorView q = part(0, heads);
  std::optional<HeadNorms> norms;
  if (m_weights.qNorm) norms = HeadNorms{m_weights.qNorm->view(), m_weights.kNorm->view(), m_config.headNormEps};
  LinearOptions project =
      withBias(m_weights.qkvBias ? std::optional<TensorView>(m_weights.qkvBias->view()) : std::nullopt, call.inputNorm);
  project.ropeAppend = RopeAppendStep{q,
                                      part(heads, kvHeads),
                                      part(heads + kvHeads, kvHeads),
                                      cacheRows(cache.m_keys),
                                      cacheRows(cache.m_values),
                                      rope,
                                      norms};
  linear(ctx, x, m_weights.qkv->view(), rows, project);
  cache.m_length += len;
  attendQueries(ctx, q, cache, out, outIn, call);
  run.submit();
}

void MultiHeadAttention::forward(Context& ctx, const TensorView& x, const TensorView& source, const TensorView& out,
                                 const AttentionLayerCall& call) {
  batched("x", x, m_config.modelDim);  // x is named first when both x and source are wrong
  const TensorView s = batched("source", source, m_config.modelDim);
  Batch run(ctx);
  KeyValueCache cache = KeyValueCache::scratch(ctx, s.dim(0), s.dim(1), m_config.kvHeads, m_config.headDim);
  append(ctx, s, cache);
  attend(ctx, x, cache, out, call);
  run.submit();
}

Tensor MultiHeadAttention::forward(Context& ctx, const TensorView& x, const TensorView& source,
                                   const AttentionLayerCall& call) {
  Tensor out = ctx.tensor(x.shape);
  forward(ctx, x, source, out, call);
  return out;
}

}  // namespace vkattn
