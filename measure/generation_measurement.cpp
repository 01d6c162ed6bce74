#include "generation_measurement.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "measurements.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/io/ggml_quant.hpp"
#include "vkattn/io/ggml_types.hpp"
#include "vkattn/models/language_model.hpp"
#include "vkattn/ops/matmul_variant.hpp"

namespace vkattn::measure {
namespace {

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Prompt ids among the vocabulary's normal pieces (past <unk> <s> </s> and the 256 bytes).
std::vector<int32_t> promptIds(int64_t count, int64_t vocab) {
  std::vector<int32_t> ids;
  const int64_t first = 3 + 256, pieces = vocab - first;
  for (int64_t i = 0; i < count; ++i) ids.push_back(static_cast<int32_t>(first + (i * 7919 + 17) % pieces));
  return ids;
}

std::string describe(const RandomModelSpec& s) {
  char text[200];
  std::snprintf(text, sizeof text, "%lld layers, d %lld, %lld heads (%lld K/V) of %lld, ffn %lld, vocab %lld, %s",
                static_cast<long long>(s.layers), static_cast<long long>(s.modelDim), static_cast<long long>(s.heads),
                static_cast<long long>(s.kvHeads), static_cast<long long>(s.headDim), static_cast<long long>(s.ffnDim),
                static_cast<long long>(s.vocab), ggmlTypeName(s.matrices).c_str());
  return text;
}

std::string describeSampling(const SamplerOptions& o) {
  if (o.temperature == 0.0f) return "greedy";
  char text[160];
  std::snprintf(text, sizeof text, "temperature %g, top k %lld, top p %g, seed %llu", o.temperature,
                static_cast<long long>(o.topK), o.topP, static_cast<unsigned long long>(o.seed));
  return text;
}

}  // namespace

GenerationMeasurement measureGeneration(Context& ctx, const GenerationCase& c) {
  const RandomModelSpec& s = c.model;
  if (c.promptTokens < c.checkedTokens || c.checkedTokens < 1)
    throw InvalidArgument("checkedTokens",
                          "must be at least 1 and at most promptTokens (" + std::to_string(c.promptTokens) + ")");
  if (c.newTokens < 2) throw InvalidArgument("newTokens", "at least 2: the first comes from the prompt's pass");
  if (c.promptTokens + c.newTokens > s.contextLength)
    throw InvalidArgument("contextLength", "the prompt and new tokens need " +
                                               std::to_string(c.promptTokens + c.newTokens) +
                                               " positions, the model has " + std::to_string(s.contextLength));
  GenerationMeasurement m;
  m.shape = describe(s);
  m.sampling = describeSampling(c.sampler);
  const double d = static_cast<double>(s.modelDim), q = static_cast<double>(s.heads * s.headDim),
               kv = static_cast<double>(s.kvHeads * s.headDim), f = static_cast<double>(s.ffnDim),
               vocab = static_cast<double>(s.vocab), layers = static_cast<double>(s.layers);
  const double perLayer = d * q * 2 + d * kv * 2 + 3 * d * f;
  const double matrixElements = layers * perLayer + (s.tied ? 0.0 : vocab * d);
  m.parameters = matrixElements + vocab * d + layers * 2 * d + d;
  // Bytes per element of the matrices' type, from a whole number of its blocks.
  const double bytesPerElement = static_cast<double>(ggmlStorageBytes(s.matrices, 256)) / 256.0;
  m.bytesPerToken =
      layers * perLayer * bytesPerElement + vocab * d * (s.tied ? static_cast<double>(sizeof(float)) : bytesPerElement);

  const auto path =
      c.keepModel.empty() ? std::filesystem::temp_directory_path() / "vkattn_bench_generate.gguf" : c.keepModel;
  const auto started = std::chrono::steady_clock::now();
  const reference::DecoderModelWeights weights = writeRandomLanguageModel(s, 2024, path);
  m.writeSeconds = seconds(std::chrono::steady_clock::now() - started);
  struct Remove {
    std::filesystem::path path;
    ~Remove() {
      if (!path.empty()) std::filesystem::remove(path);
    }
  } remove{c.keepModel.empty() ? path : std::filesystem::path()};
  LanguageModel model(ctx, path);

  const std::vector<int32_t> prompt = promptIds(c.promptTokens, s.vocab);
  const std::vector<int32_t> checked(prompt.begin(), prompt.begin() + c.checkedTokens);
  const std::vector<float> got = model.logits(checked);
  const std::vector<double> expected = reference::decoderLogitsRef(weights, checked);
  double largest = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    largest = std::max(largest, std::abs(expected[i]));
    m.logitError = std::max(m.logitError, std::abs(static_cast<double>(got[i]) - expected[i]));
  }
  m.logitTolerance = 1e-3 * largest;
  if (!m.passed()) return m;

  GenerateOptions options;
  options.sampler = c.sampler;
  options.ignoreEos = true;  // a sampled end-of-sequence token does not cut the timed run short
  options.maxTokens = std::min<int64_t>(c.newTokens, 4);
  for (bool replay : {false, true}) {  // compiles every kernel the passes below use
    options.replay = replay;
    model.generate(prompt, options);
  }
  options.maxTokens = c.newTokens;
  const auto timed = [&](bool replay) {
    options.replay = replay;
    Generation g = model.generate(prompt, options);
    if (static_cast<int64_t>(g.ids.size()) != c.newTokens)
      throw InvalidArgument(
          "newTokens", "the model stopped after " + std::to_string(g.ids.size()) + " tokens (" + toString(g.end) + ")");
    return g;
  };
  const Generation recorded = timed(false), g = timed(true);
  if (recorded.ids != g.ids) throw Error("bench generate: replayed decoding drew other tokens than recorded decoding");
  const double decoded = static_cast<double>(g.ids.size() - 1);
  m.promptTokensPerSecond = static_cast<double>(prompt.size()) / g.promptSeconds;
  const std::optional<DType> stored = ggmlStorageFormat(s.matrices);
  m.promptWeightKernel = stored && *stored != DType::F32
                             ? toString(weightKernelFor(ctx, static_cast<int64_t>(prompt.size()), *stored))
                             : "float";
  m.decodeTokensPerSecond = decoded / g.generateSeconds;
  m.waitMicrosecondsPerToken = g.generateWaitSeconds / decoded * 1e6;
  m.hostMicrosecondsPerToken = (g.generateSeconds - g.generateWaitSeconds) / decoded * 1e6;
  m.recordedDecodeTokensPerSecond = decoded / recorded.generateSeconds;
  m.recordedHostMicrosecondsPerToken = (recorded.generateSeconds - recorded.generateWaitSeconds) / decoded * 1e6;
  m.decodeGBs = m.bytesPerToken * m.decodeTokensPerSecond * 1e-9;
  const std::size_t copyBytes = std::min<std::size_t>(256u << 20, static_cast<std::size_t>(m.bytesPerToken));
  m.copyGBs = copyRate(ctx, copyBytes, 10);
  return m;
}

void printGeneration(const GenerationMeasurement& m) {
  std::printf("model:      %s, %.1f million parameters, %.1f MB read per decoded token\n", m.shape.c_str(),
              m.parameters * 1e-6, m.bytesPerToken * 1e-6);
  std::printf("check:      logits max |err| %.2e, tolerance %.2e: %s\n", m.logitError, m.logitTolerance,
              m.passed() ? "ok" : "FAIL");
  if (!m.passed()) return;
  std::printf("sampling:   %s (the token drawn on the device)\n", m.sampling.c_str());
  std::printf("prompt:     %.1f tokens/s (weight kernel %s)\n", m.promptTokensPerSecond, m.promptWeightKernel.c_str());
  std::printf("decode:     %.2f tokens/s, weights read at %.1f GB/s (device copy %.1f GB/s: %.2fx)\n",
              m.decodeTokensPerSecond, m.decodeGBs, m.copyGBs, m.decodeGBs / m.copyGBs);
  std::printf(
      "per token:  %.0f us on the host (recording, submitting, reading back, sampling), %.0f us waiting "
      "for the device\n",
      m.hostMicrosecondsPerToken, m.waitMicrosecondsPerToken);
  std::printf(
      "recorded:   %.2f tokens/s, %.0f us on the host a token, with every token recorded afresh (replay "
      "%.2fx)\n",
      m.recordedDecodeTokensPerSecond, m.recordedHostMicrosecondsPerToken,
      m.decodeTokensPerSecond / m.recordedDecodeTokensPerSecond);
  std::printf("written in: %.1f s (drawing and writing the model file, not timed above)\n", m.writeSeconds);
}

}  // namespace vkattn::measure
