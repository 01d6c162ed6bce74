#include "sources/demo_source.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "vkattn/core/error.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn::viewer {
namespace {

// Query/key layout: kFrequencies (cos, sin) pairs code the position, so q(i) . k(j) peaks at
// i == j; then one feature per sink (first, last column) and a little seeded "content" noise.
constexpr int64_t kFrequencies = 60;
constexpr int64_t kHeadDim = 128;
constexpr int64_t kSinkFirst = 2 * kFrequencies;
constexpr int64_t kSinkLast = kSinkFirst + 1;
constexpr int64_t kNoise = kSinkLast + 1;  // up to kHeadDim

// One head's pattern: row i attends to column target(i) + offset with sharpness `sharpness`,
// plus fixed logits on the first and last columns.
struct HeadPattern {
  int offset = 0;
  float sharpness = 14.0f;
  float sinkFirst = 0.0f;
  float sinkLast = 0.0f;
};

// Deterministic pseudo-random numbers in [0, 1): the demo looks the same on every run.
float hashUnit(uint32_t a, uint32_t b) {
  uint32_t h = a * 0x9e3779b1u ^ (b + 0x7f4a7c15u) * 0x85ebca77u;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  return static_cast<float>(h >> 8) / 16777216.0f;
}

// Half the frequencies are low, so that neighbours of the target get some of the attention (a
// bump about two tokens wide); the high half makes the peak stand out at any sequence length.
float frequency(int64_t k) {
  const float u = hashUnit(17, static_cast<uint32_t>(k));
  return k % 2 == 0 ? 0.05f + 0.95f * u : 0.1f + (3.14159265f - 0.1f) * u;
}

void positionCode(float* out, double position, float gain) {
  for (int64_t k = 0; k < kFrequencies; ++k) {
    const double angle = frequency(k) * position;
    out[2 * k] = gain * static_cast<float>(std::cos(angle));
    out[2 * k + 1] = gain * static_cast<float>(std::sin(angle));
  }
}

// Weights of one layer's heads, each [rows, cols]: row i looks for column align[i] + pattern.offset.
std::vector<DeviceMap> layerWeights(Context& ctx, const std::vector<HeadPattern>& heads,
                                    const std::vector<double>& align, int64_t cols, bool causal, uint32_t seed) {
  const int64_t h = static_cast<int64_t>(heads.size()), rows = static_cast<int64_t>(align.size());
  std::vector<float> q(static_cast<std::size_t>(h * rows * kHeadDim), 0.0f);
  std::vector<float> k(static_cast<std::size_t>(h * cols * kHeadDim), 0.0f);
  for (int64_t head = 0; head < h; ++head) {
    const HeadPattern& pattern = heads[static_cast<std::size_t>(head)];
    for (int64_t i = 0; i < rows; ++i) {
      float* row = q.data() + (head * rows + i) * kHeadDim;
      positionCode(row, align[static_cast<std::size_t>(i)] + pattern.offset, pattern.sharpness / kFrequencies);
      row[kSinkFirst] = pattern.sinkFirst;
      row[kSinkLast] = pattern.sinkLast;
      for (int64_t n = kNoise; n < kHeadDim; ++n)
        row[n] = hashUnit(seed + static_cast<uint32_t>(head), static_cast<uint32_t>(i * 31 + n)) - 0.5f;
    }
    for (int64_t j = 0; j < cols; ++j) {
      float* key = k.data() + (head * cols + j) * kHeadDim;
      positionCode(key, static_cast<double>(j), 1.0f);
      key[kSinkFirst] = j == 0 ? 1.0f : 0.0f;
      key[kSinkLast] = j == cols - 1 ? 1.0f : 0.0f;
      for (int64_t n = kNoise; n < kHeadDim; ++n)
        key[n] = 2.0f * (hashUnit(seed + 99, static_cast<uint32_t>(j * 31 + n)) - 0.5f);
    }
  }
  Tensor qt = ctx.tensor({1, h, rows, kHeadDim}, q);
  Tensor kt = ctx.tensor({1, h, cols, kHeadDim}, k);
  AttentionOptions options;
  options.scale = 1.0f;  // the patterns carry their own sharpness
  options.causal = causal;
  return weightsPerHead(ctx, qt, kt, options);
}

std::vector<double> identity(int64_t n) {
  std::vector<double> a(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) a[static_cast<std::size_t>(i)] = static_cast<double>(i);
  return a;
}

// The alignment figure's sentence gets its French tokens and alignment; any other sentence is
// "translated" word for word.
struct DemoTarget {
  std::vector<std::string> tokens;
  std::vector<double> align;  // source position each target token looks at
  bool translated = false;    // false: the sentence itself stands in for a target
};

DemoTarget demoTarget(const std::vector<std::string>& source) {
  static const std::vector<std::string> kEnglish = {"The",      "agreement", "on",  "the",    "European",
                                                    "Economic", "Area",      "was", "signed", "in",
                                                    "August",   "1992",      ".",   "<eos>"};
  if (source == kEnglish)
    return {{"L'", "accord", "sur", "la", "zone", "économique", "européenne", "a", "été", "signé", "en", "août", "1992",
             ".", "<eos>"},
            {0, 1, 2, 3, 6, 5, 4, 7, 7, 8, 9, 10, 11, 12, 13},
            true};
  return {source, identity(static_cast<int64_t>(source.size())), false};
}

AttentionKind kind(std::string id, std::string title, std::vector<std::string> rows, std::vector<std::string> cols) {
  AttentionKind k;
  k.id = std::move(id);
  k.title = std::move(title);
  k.rowTokens = std::move(rows);
  k.colTokens = std::move(cols);
  return k;
}

bool isPunctuation(char c) {
  return std::strchr(".,;:!?\"()", c) != nullptr;
}

}  // namespace

std::vector<std::string> splitWords(const std::string& sentence) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    std::size_t end = word.size();
    while (end > 0 && isPunctuation(word[end - 1])) --end;
    std::size_t begin = 0;
    while (begin < end && isPunctuation(word[begin])) words.emplace_back(1, word[begin++]);
    if (end > begin) words.push_back(word.substr(begin, end - begin));
    for (std::size_t i = end; i < word.size(); ++i) words.emplace_back(1, word[i]);
    word.clear();
  };
  for (char c : sentence) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
      flush();
    else
      word += c;
  }
  flush();
  return words;
}

AttentionSet DemoSource::compute(const std::string& sentence) {
  const auto start = std::chrono::steady_clock::now();
  AttentionSet set;
  if (m_length > 0) {
    std::vector<std::string> tokens;
    for (int64_t i = 0; i < m_length; ++i) tokens.push_back(std::string("t").append(std::to_string(i)));
    AttentionKind self =
        kind("encoder", "Synthetic self-attention over " + std::to_string(m_length) + " tokens", tokens, tokens);
    self.layers.push_back(
        layerWeights(m_ctx, {{0, 14.0f, 2.0f, 0.0f}, {-1, 10.0f, 0.0f, 3.0f}}, identity(m_length), m_length, false, 7));
    set.kinds.push_back(std::move(self));
  } else {
    std::vector<std::string> source = splitWords(sentence);
    if (source.empty()) throw InvalidArgument("--prompt", "is empty; type a sentence to see its attention");
    source.push_back("<eos>");
    const DemoTarget target = demoTarget(source);
    const auto s = static_cast<int64_t>(source.size()), t = static_cast<int64_t>(target.tokens.size());
    std::vector<std::string> decoderInputs = {"<bos>"};
    decoderInputs.insert(decoderInputs.end(), target.tokens.begin(), target.tokens.end() - 1);

    // Only the figure's sentence has a French target; any other is aligned with itself, and the
    // title must not pass that off as a translation.
    AttentionKind cross =
        target.translated
            ? kind("cross", "Cross-attention: French (rows) over English (columns)", target.tokens, source)
            : kind("cross", "Synthetic alignment: the sentence over itself (the demo has no translation)",
                   target.tokens, source);
    cross.layers.push_back(
        layerWeights(m_ctx, {{0, 3.5f}, {0, 1.5f}, {0, 8.0f, 0.0f, 4.0f}, {-1, 12.0f}}, target.align, s, false, 1));
    cross.layers.push_back(
        layerWeights(m_ctx, {{0, 20.0f}, {1, 12.0f}, {0, 6.0f, 5.0f}, {0, 0.5f}}, target.align, s, false, 2));
    AttentionKind encoder = kind("encoder", "Encoder self-attention", source, source);
    encoder.layers.push_back(
        layerWeights(m_ctx, {{0, 4.0f}, {-1, 14.0f}, {1, 14.0f}, {0, 1.0f, 0.0f, 5.0f}}, identity(s), s, false, 3));
    encoder.layers.push_back(
        layerWeights(m_ctx, {{0, 6.0f}, {0, 8.0f, 4.0f}, {-2, 10.0f}, {0, 0.3f}}, identity(s), s, false, 4));
    // Decoder self-attention: row t is the step that produced target token t, its query the
    // previous token (<bos> first); causal, so it sees inputs 0..t.
    AttentionKind decoder = kind("decoder", "Decoder self-attention (causal)", target.tokens, decoderInputs);
    decoder.causal = true;
    decoder.layers.push_back(
        layerWeights(m_ctx, {{0, 5.0f}, {-1, 14.0f}, {0, 2.0f, 6.0f}, {0, 0.2f}}, identity(t), t, true, 5));
    decoder.layers.push_back(
        layerWeights(m_ctx, {{0, 10.0f}, {-2, 12.0f}, {0, 4.0f, 3.0f}, {-1, 3.0f}}, identity(t), t, true, 6));
    set.kinds = {std::move(cross), std::move(encoder), std::move(decoder)};
    std::string french;
    for (const auto& token : target.tokens)
      if (token != "<eos>") french += (french.empty() ? token : " " + token);
    set.output = target.translated ? french : std::string();
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  set.status = "demo: weights computed with vkattn::attentionWeights on " + m_ctx.info().name + " in " +
               std::to_string(static_cast<int>(ms)) + " ms";
  return set;
}

}  // namespace vkattn::viewer
