#include "random_language_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "vkattn/core/error.hpp"
#include "vkattn/io/ggml_quant.hpp"
#include "vkattn/io/gguf_vocabulary.hpp"
#include "vkattn/io/gguf_writer.hpp"
#include "vkattn/reference/reference.hpp"

namespace vkattn::measure {
namespace {

using reference::DecoderLayerWeights;
using reference::DecoderModelWeights;
using Shape = std::vector<int64_t>;

void checkSpec(const RandomModelSpec& s) {
  const auto positive = [](const char* field, int64_t value) {
    if (value <= 0) throw InvalidArgument(field, "must be positive, got " + std::to_string(value));
  };
  positive("layers", s.layers);
  positive("modelDim", s.modelDim);
  positive("ffnDim", s.ffnDim);
  positive("heads", s.heads);
  positive("kvHeads", s.kvHeads);
  positive("headDim", s.headDim);
  positive("rotaryDim", s.rotaryDim);
  positive("contextLength", s.contextLength);
  // Rows of every matrix are whole blocks of its type.
  const int64_t block = ggmlTypeTraits(s.matrices).blockElements;
  const auto wholeBlocks = [&](const char* field, int64_t rowLength) {
    if (rowLength % block != 0)
      throw InvalidArgument(field, ggmlTypeName(s.matrices) + " stores rows in blocks of " + std::to_string(block) +
                                       ": " + std::to_string(rowLength) + " is not a multiple");
  };
  wholeBlocks("modelDim", s.modelDim);
  wholeBlocks("ffnDim", s.ffnDim);
  wholeBlocks("headDim", s.heads * s.headDim);
  if (s.heads % s.kvHeads != 0)
    throw InvalidArgument("kvHeads",
                          std::to_string(s.kvHeads) + " does not divide heads (" + std::to_string(s.heads) + ")");
  if (s.vocab < kRandomModelMinVocab)
    throw InvalidArgument(
        "vocab", "at least " + std::to_string(kRandomModelMinVocab) + " tokens, got " + std::to_string(s.vocab));
}

// The SentencePiece pieces the tests' texts use, then fillers up to `vocab` tokens.
void addVocabulary(GgufWriter& w, int64_t vocab) {
  const char* pieces[] = {"\u2581", "a", "b", "c", "\u2581a", "ab", "\u2581ab", "bc", "\u2581abc"};
  std::vector<std::pair<std::string, float>> normal;
  for (std::size_t i = 0; kFirstByteToken + 256 + static_cast<int64_t>(normal.size()) < vocab; ++i) {
    char filler[24];
    std::snprintf(filler, sizeof filler, "x%zu", i);
    normal.emplace_back(i < std::size(pieces) ? pieces[i] : filler, -static_cast<float>(i));
  }
  for (auto& [key, value] : byteFallbackVocabulary(normal)) w.setMetadata(key, std::move(value));
}

// One tensor to draw: uniform in shift ± scale, stored as `type`, decoded into `into` (if any).
struct TensorJob {
  std::string name;
  Shape shape;
  float scale = 0, shift = 0;
  GgmlType type = GgmlType::F32;
  uint64_t seed = 0;
  std::vector<float>* into = nullptr;
  bool zeroRow = false;  // row 2 (</s>) all zeros
  std::vector<uint8_t> bytes;
};

void draw(TensorJob& job, int64_t rowLength) {
  std::size_t count = 1;
  for (int64_t d : job.shape) count *= static_cast<std::size_t>(d);
  std::vector<float> v = reference::randomValues(count, job.seed);
  for (float& x : v) x = job.shift + job.scale * x;
  if (job.zeroRow) std::fill_n(v.begin() + 2 * rowLength, rowLength, 0.0f);
  job.bytes = quantizeGgml(job.type, v);
  if (job.into) *job.into = job.type == GgmlType::F32 ? std::move(v) : dequantizeGgml(job.type, job.bytes, count);
}

// Draws every job, the largest first, on all cores (a 1B-parameter model is seconds, not minutes).
void drawAll(std::vector<TensorJob>& jobs, int64_t rowLength) {
  std::vector<std::size_t> order(jobs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto size = [&](std::size_t i) {
    int64_t n = 1;
    for (int64_t d : jobs[i].shape) n *= d;
    return n;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return size(a) > size(b); });
  std::size_t next = 0;
  std::mutex taking;
  std::exception_ptr failure;
  const auto worker = [&] {
    for (;;) {
      std::size_t i;
      {
        std::lock_guard lock(taking);
        if (next == order.size() || failure) return;
        i = order[next++];
      }
      try {
        draw(jobs[i], rowLength);
      } catch (...) {
        std::lock_guard lock(taking);
        failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < std::min<std::size_t>(cores, jobs.size()); ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

// Gemma's metadata, and what it means for the reference (as llama.cpp reads it).
template <typename Set>
void describeGemma(const RandomModelSpec& s, DecoderModelWeights& m, const Set& set) {
  const bool gemma2 = s.arch == "gemma2";
  const std::string a = s.arch + ".";
  m.gateActivation = Activation::GeluTanh;
  m.embeddingScale = std::sqrt(static_cast<double>(s.modelDim));
  const bool is27B = s.layers == (gemma2 ? 46 : 62);
  m.queryScale = 1.0 / std::sqrt(static_cast<double>(is27B ? s.modelDim / s.heads : s.headDim));
  m.slidingWindow = s.slidingWindow > 0 ? s.slidingWindow : gemma2 ? 4096 : 0;
  m.slidingPattern = gemma2 ? 2 : 6;
  m.slidingRopeTheta = gemma2 ? 0.0 : 10000.0;
  if (s.slidingWindow > 0) set(a + "attention.sliding_window", GgufValue(uint32_t(s.slidingWindow)));
  if (gemma2) {
    m.attentionSoftcap = s.attentionSoftcap.value_or(50.0f);
    if (s.attentionSoftcap) set(a + "attn_logit_softcapping", GgufValue(*s.attentionSoftcap));
  }
  m.finalSoftcap = s.finalSoftcap.value_or(gemma2 ? 30.0f : 0.0f);
  if (s.finalSoftcap) set(a + "final_logit_softcapping", GgufValue(*s.finalSoftcap));
}

}  // namespace

DecoderModelWeights writeRandomLanguageModel(const RandomModelSpec& s, uint32_t seed, const std::filesystem::path& path,
                                             const RandomModelFile& file) {
  checkSpec(s);
  DecoderModelWeights m;
  m.modelDim = s.modelDim, m.ffnDim = s.ffnDim, m.heads = s.heads, m.kvHeads = s.kvHeads, m.headDim = s.headDim;
  m.vocab = s.vocab, m.rotaryDim = s.rotaryDim, m.ropeTheta = s.theta, m.ropeInterleaved = s.arch == "llama";
  m.normEps = 1e-5;
  const bool gemma = s.arch == "gemma2" || s.arch == "gemma3";

  GgufWriter w;
  std::set<std::string> written;
  const auto set = [&](const std::string& key, GgufValue value) {
    const auto it = file.overrides.find(key);
    w.setMetadata(key, it == file.overrides.end() ? std::move(value) : it->second);
    written.insert(key);
  };
  set("general.architecture", GgufValue(s.arch.c_str()));
  const std::string a = s.arch + ".";
  set(a + "context_length", GgufValue(uint32_t(s.contextLength)));
  set(a + "embedding_length", GgufValue(uint32_t(s.modelDim)));
  set(a + "block_count", GgufValue(uint32_t(s.layers)));
  set(a + "feed_forward_length", GgufValue(uint32_t(s.ffnDim)));
  set(a + "attention.head_count", GgufValue(uint32_t(s.heads)));
  set(a + "attention.head_count_kv", GgufValue(uint32_t(s.kvHeads)));
  set(a + "attention.key_length", GgufValue(uint32_t(s.headDim)));
  set(a + "rope.freq_base", GgufValue(float(s.theta)));
  set(a + "rope.dimension_count", GgufValue(uint32_t(s.rotaryDim)));
  set(a + "attention.layer_norm_rms_epsilon", GgufValue(1e-5f));
  if (gemma) describeGemma(s, m, set);
  for (const auto& [key, value] : file.overrides)
    if (!written.count(key)) w.setMetadata(key, value);
  addVocabulary(w, s.vocab);

  // Every tensor in file order, each with the next seed.
  std::vector<TensorJob> jobs;
  jobs.reserve(static_cast<std::size_t>(12 * s.layers + 4));
  const auto tensor = [&](const std::string& name, const Shape& shape, float scale, float shift, bool matrix,
                          std::vector<float>* into) -> TensorJob& {
    return jobs.emplace_back(TensorJob{.name = name,
                                       .shape = shape,
                                       .scale = scale,
                                       .shift = shift,
                                       .type = matrix ? s.matrices : GgmlType::F32,
                                       .seed = seed + static_cast<uint32_t>(jobs.size()),
                                       .into = file.keepWeights || !matrix ? into : nullptr});
  };
  const int64_t d = s.modelDim, q = s.heads * s.headDim, kv = s.kvHeads * s.headDim;
  const float wScale = 0.5f / std::sqrt(static_cast<float>(d));
  m.layers.resize(static_cast<std::size_t>(s.layers));
  tensor("token_embd.weight", {s.vocab, d}, 1.0f, 0.0f, false, file.keepWeights ? &m.embedding : nullptr);
  for (int64_t l = 0; l < s.layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    DecoderLayerWeights& layer = m.layers[static_cast<std::size_t>(l)];
    tensor(p + "attn_norm.weight", {d}, 0.2f, 1.0f, false, &layer.attentionNorm);
    tensor(p + "attn_q.weight", {q, d}, 2 * wScale, 0, true, &layer.q);
    tensor(p + "attn_k.weight", {kv, d}, 2 * wScale, 0, true, &layer.k);
    tensor(p + "attn_v.weight", {kv, d}, wScale, 0, true, &layer.v);
    if (s.arch == "qwen2") {
      tensor(p + "attn_q.bias", {q}, 0.3f, 0, false, &layer.qBias);
      tensor(p + "attn_k.bias", {kv}, 0.3f, 0, false, &layer.kBias);
      tensor(p + "attn_v.bias", {kv}, 0.3f, 0, false, &layer.vBias);
    }
    if (s.arch == "qwen3" || s.arch == "gemma3") {
      tensor(p + "attn_q_norm.weight", {s.headDim}, 0.3f, 1.0f, false, &layer.qNorm);
      tensor(p + "attn_k_norm.weight", {s.headDim}, 0.3f, 1.0f, false, &layer.kNorm);
    }
    tensor(p + "attn_output.weight", {d, q}, wScale, 0, true, &layer.o);
    if (gemma) tensor(p + "post_attention_norm.weight", {d}, 0.2f, 1.0f, false, &layer.postAttentionNorm);
    tensor(p + "ffn_norm.weight", {d}, 0.2f, 1.0f, false, &layer.ffnNorm);
    tensor(p + "ffn_gate.weight", {s.ffnDim, d}, 2 * wScale, 0, true, &layer.gate);
    tensor(p + "ffn_up.weight", {s.ffnDim, d}, 2 * wScale, 0, true, &layer.up);
    tensor(p + "ffn_down.weight", {d, s.ffnDim}, wScale, 0, true, &layer.down);
    if (gemma) tensor(p + "post_ffw_norm.weight", {d}, 0.2f, 1.0f, false, &layer.postFfnNorm);
  }
  tensor("output_norm.weight", {d}, 0.2f, 1.0f, false, &m.outputNorm);
  if (!s.tied) tensor("output.weight", {s.vocab, d}, 4 * wScale, 0, true, &m.output).zeroRow = s.neverEndsSequence;
  drawAll(jobs, d);
  if (s.tied) m.output = m.embedding;

  for (TensorJob& job : jobs)
    if (job.name != file.dropTensor) w.addRawTensor(job.name, job.shape, job.type, std::move(job.bytes));
  if (s.ropeFreqs) {
    std::vector<float> divisors(static_cast<std::size_t>(s.rotaryDim / 2));
    for (std::size_t i = 0; i < divisors.size(); ++i) divisors[i] = i % 2 ? 1.0f + float(i) : 0.5f;
    w.addTensor("rope_freqs.weight", {s.rotaryDim / 2}, divisors);
    m.ropeDivisors.assign(divisors.begin(), divisors.end());
  }
  w.write(path);
  return m;
}

}  // namespace vkattn::measure
