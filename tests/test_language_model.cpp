// LLaMA-family GGUF models on vkattn's kernels against the double-precision decoder reference:
// random small models written as GGUF (llama with GQA and adjacent-pair RoPE, qwen2 with biases
// and rotate-half RoPE over MQA, qwen3 with per-head q/k RMSNorm and a head dim apart from the
// width, gemma2 and gemma3 with GeGLU, post-norms, scaled embeddings, softcaps and sliding-window
// layers, tied output, Llama 3 rope_freqs with a partial rotary dim,
// quantized matrices), incremental decoding against full forward passes, attention maps,
// sampling, and clear errors for files vkattn cannot run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "random_language_model.hpp"
#include "support/compare.hpp"
#include "support/invalid_argument_of.hpp"
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/recorder.hpp"
#include "vkattn/io/ggml_quant.hpp"
#include "vkattn/io/gguf_writer.hpp"
#include "vkattn/models/language_model.hpp"
#include "vkattn/reference/language_model_reference.hpp"
#include "vkattn/reference/reference.hpp"
#include "vkattn/tokenizers/text_tokenizer.hpp"
#include "vkattn/tokenizers/token_vocabulary.hpp"

namespace vkattn::test {
namespace {

using reference::DecoderLayerWeights;
using reference::DecoderModelWeights;

// Logits are O(1); fp32 accumulation over d = 64..96 and two layers stays far inside this.
constexpr double kLogitAtol = 2e-4;
constexpr double kLogitRtol = 1e-4;
constexpr double kProbabilityAtol = 1e-5;

using ModelSpec = measure::RandomModelSpec;

struct BuiltModel {
  std::filesystem::path path;
  DecoderModelWeights weights;  // as the file stores them (dequantized)
};

class ModelBuilder {
 public:
  ModelBuilder(const ModelSpec& spec, uint32_t seed) : m_spec(spec), m_seed(seed) {}

  // Writes the model as GGUF (leaving out `dropTensor`, with `overrides` replacing metadata).
  BuiltModel write(const std::string& name, const std::string& dropTensor = {},
                   const std::map<std::string, GgufValue>& overrides = {}) {
    BuiltModel built;
    built.path = std::filesystem::temp_directory_path() / ("vkattn_test_lm_" + name + ".gguf");
    built.weights = measure::writeRandomLanguageModel(m_spec, m_seed, built.path,
                                                      {.dropTensor = dropTensor, .overrides = overrides});
    return built;
  }

  static constexpr int64_t kVocab = measure::kRandomModelDefaultVocab;

 private:
  ModelSpec m_spec;
  uint32_t m_seed;
};

std::vector<int32_t> someIds(std::size_t n, int32_t salt) {
  std::vector<int32_t> ids;
  for (std::size_t i = 0; i < n; ++i)
    ids.push_back(static_cast<int32_t>((i * 37 + static_cast<std::size_t>(salt) * 11 + 5) % ModelBuilder::kVocab));
  return ids;
}

void expectLogitsMatch(Context& ctx, const ModelSpec& spec, const std::string& name, uint32_t seed) {
  const BuiltModel built = ModelBuilder(spec, seed).write(name);
  LanguageModel model(ctx, built.path);
  EXPECT_EQ(model.config().architecture, spec.arch);
  const std::vector<int32_t> ids = someIds(11, static_cast<int32_t>(seed));
  EXPECT_TRUE(allClose(model.logits(ids), reference::decoderLogitsRef(built.weights, ids), kLogitAtol, kLogitRtol))
      << name;
  std::filesystem::remove(built.path);
}

std::size_t argmax(const double* row, int64_t n) {
  return static_cast<std::size_t>(std::max_element(row, row + n) - row);
}

// Greedy generation with the KV cache: every step's logits equal the last row of a fresh forward
// pass of the reference over everything fed so far, and each token is the reference's argmax.
void expectStepsMatchFullPasses(LanguageModel& model, const BuiltModel& built, const std::vector<int32_t>& prompt,
                                std::size_t steps, int64_t promptChunk = 512) {
  GenerateOptions options;
  options.maxTokens = static_cast<int64_t>(steps);
  options.logits = true;
  options.promptChunk = promptChunk;
  const Generation g = model.generate(prompt, options);
  ASSERT_EQ(g.ids.size(), steps);
  ASSERT_EQ(g.logits.size(), steps * ModelBuilder::kVocab);
  std::vector<int32_t> fed = prompt;
  for (std::size_t step = 0; step < g.ids.size(); ++step) {
    const std::vector<double> ref = reference::decoderLogitsRef(built.weights, fed);
    const double* last = ref.data() + (fed.size() - 1) * ModelBuilder::kVocab;
    const std::vector<float> got(g.logits.begin() + static_cast<std::ptrdiff_t>(step * ModelBuilder::kVocab),
                                 g.logits.begin() + static_cast<std::ptrdiff_t>((step + 1) * ModelBuilder::kVocab));
    EXPECT_TRUE(allClose(got, std::vector<double>(last, last + ModelBuilder::kVocab), kLogitAtol, kLogitRtol))
        << "step " << step;
    EXPECT_EQ(static_cast<std::size_t>(g.ids[step]), argmax(last, ModelBuilder::kVocab)) << "step " << step;
    fed.push_back(g.ids[step]);
  }
}

TEST_F(VkattnTest, LlamaLogitsMatchTheDoubleReference) {
  expectLogitsMatch(ctx(), ModelSpec{}, "llama", 1);
}

TEST_F(VkattnTest, Qwen2BiasesRotateHalfAndMqa) {
  expectLogitsMatch(ctx(), ModelSpec{.arch = "qwen2", .heads = 4, .kvHeads = 1, .theta = 1000000.0}, "qwen2", 2);
}

TEST_F(VkattnTest, Qwen3HeadNormsAndAHeadDimApartFromTheWidth) {
  // Qwen3: each q and k head RMSNorm-ed before RoPE (keys as they enter the cache, so a step by
  // step generation checks that path too); 4 heads of 32 over a width of 64.
  const ModelSpec spec{
      .arch = "qwen3", .modelDim = 64, .heads = 4, .kvHeads = 2, .headDim = 32, .rotaryDim = 32, .theta = 1000000.0};
  expectLogitsMatch(ctx(), spec, "qwen3", 7);
  const BuiltModel built = ModelBuilder(spec, 8).write("qwen3_steps");
  LanguageModel model(ctx(), built.path);
  expectStepsMatchFullPasses(model, built, someIds(4, 8), 4);
  // Keys normalized, rotated, then encoded into a bf16 cache: within bf16's rounding.
  LanguageModel bf16(ctx(), built.path, {.kvFormat = DType::BF16});
  const std::vector<int32_t> ids = someIds(9, 9);
  EXPECT_TRUE(allClose(bf16.logits(ids), reference::decoderLogitsRef(built.weights, ids), 5e-3, 0.0));
  std::filesystem::remove(built.path);
}

// The attention maps of a generation against the reference's probabilities of what was fed;
// onStep (if any) sees each step as it arrives.
void expectMapsMatch(LanguageModel& model, const BuiltModel& built, const std::vector<int32_t>& prompt, int64_t steps,
                     const std::function<bool(const GenerationStep&)>& onStep = {}) {
  GenerateOptions options;
  options.maxTokens = steps;
  options.attention = true;
  options.onStep = onStep;
  const Generation g = model.generate(prompt, options);
  std::vector<int32_t> fed = prompt;
  fed.insert(fed.end(), g.ids.begin(), g.ids.end() - 1);  // the last sampled token was never fed
  std::vector<std::vector<double>> probabilities;
  reference::decoderLogitsRef(built.weights, fed, &probabilities);
  ASSERT_EQ(g.attention.size(), probabilities.size());
  for (std::size_t l = 0; l < probabilities.size(); ++l) {
    EXPECT_EQ(g.attention[l].rows, static_cast<int64_t>(fed.size()));
    EXPECT_TRUE(allClose(g.attention[l].weights, probabilities[l], kProbabilityAtol, 0.0)) << "layer " << l;
  }
}

TEST_F(VkattnTest, Gemma2SoftcapsSlidingWindowsAndGeglu) {
  // Gemma 2: embeddings times sqrt(64), GeGLU, norms after attention and feed-forward, attention
  // logits softcapped at 1.5 (small, so tanh bends them), final logits at 8, and layer 0 sliding
  // over 4 positions while layer 1 sees them all: 11 tokens reach past the window.
  const ModelSpec spec{.arch = "gemma2",
                       .modelDim = 64,
                       .heads = 4,
                       .kvHeads = 2,
                       .headDim = 32,
                       .rotaryDim = 32,
                       .tied = true,
                       .slidingWindow = 4,
                       .attentionSoftcap = 1.5f,
                       .finalSoftcap = 8.0f};
  const BuiltModel built = ModelBuilder(spec, 12).write("gemma2");
  LanguageModel model(ctx(), built.path);
  const LanguageModelConfig& c = model.config();
  EXPECT_EQ(c.gateActivation, Activation::GeluTanh);
  EXPECT_TRUE(c.slides(0));
  EXPECT_FALSE(c.slides(1));
  const std::vector<int32_t> ids = someIds(11, 12);
  const std::vector<float> logits = model.logits(ids);
  EXPECT_TRUE(allClose(logits, reference::decoderLogitsRef(built.weights, ids), kLogitAtol, kLogitRtol));
  float largest = 0.0f;
  for (float v : logits) largest = std::max(largest, std::abs(v));
  EXPECT_LE(largest, 8.0f);
  expectStepsMatchFullPasses(model, built, someIds(3, 12), 5);
  expectMapsMatch(model, built, someIds(4, 13), 4);
  // Without the keys, llama.cpp's defaults: window 4096 and softcaps 50 and 30.
  const BuiltModel defaults = ModelBuilder(ModelSpec{.arch = "gemma2", .tied = true}, 13).write("gemma2_defaults");
  LanguageModel plain(ctx(), defaults.path);
  EXPECT_EQ(plain.config().slidingWindow, 4096);
  EXPECT_EQ(plain.config().attentionSoftcap, 50.0f);
  EXPECT_EQ(plain.config().finalSoftcap, 30.0f);
  EXPECT_TRUE(allClose(plain.logits(ids), reference::decoderLogitsRef(defaults.weights, ids), kLogitAtol, kLogitRtol));
  std::filesystem::remove(built.path);
  std::filesystem::remove(defaults.path);
}

TEST_F(VkattnTest, Gemma3LocalAndGlobalLayersWithTheirOwnRope) {
  // Gemma 3: q/k head norms, five sliding layers (window 3, RoPE base 10000, unscaled) to each
  // global one (base 1e6, linear scaling by 8), so layer 5 is global and 6 slides again.
  const ModelSpec spec{.arch = "gemma3",
                       .layers = 7,
                       .modelDim = 64,
                       .heads = 2,
                       .kvHeads = 1,
                       .headDim = 32,
                       .rotaryDim = 32,
                       .theta = 1000000.0,
                       .slidingWindow = 3};
  BuiltModel built = ModelBuilder(spec, 14).write(
      "gemma3", {},
      {{"gemma3.rope.scaling.type", GgufValue("linear")}, {"gemma3.rope.scaling.factor", GgufValue(8.0f)}});
  built.weights.ropeDivisors.assign(16, 8.0);  // the global layers' linear scaling
  LanguageModel model(ctx(), built.path);
  EXPECT_TRUE(model.config().headNorms);
  EXPECT_EQ(model.config().finalSoftcap, 0.0f);
  for (int64_t l = 0; l < 7; ++l) EXPECT_EQ(model.config().slides(l), l != 5) << "layer " << l;
  const std::vector<int32_t> ids = someIds(10, 14);
  EXPECT_TRUE(allClose(model.logits(ids), reference::decoderLogitsRef(built.weights, ids), kLogitAtol, kLogitRtol));
  expectStepsMatchFullPasses(model, built, someIds(3, 14), 4);
  // The same weights read as if every layer took the global RoPE give other logits: the test
  // tells the two bases apart.
  reference::DecoderModelWeights wrong = built.weights;
  wrong.slidingRopeTheta = 0.0;
  EXPECT_TRUE(differs(model.logits(ids), reference::decoderLogitsRef(wrong, ids), kLogitAtol, kLogitRtol));
  std::filesystem::remove(built.path);
}

TEST_F(VkattnTest, PerplexityScoresChunksAsLlamaPerplexity) {
  // Chunks of `context` tokens, bos opening each where the vocabulary adds one, the second half of
  // each scored: against the double reference's logits of the same chunks.
  const BuiltModel built = ModelBuilder(ModelSpec{}, 11).write("perplexity");
  LanguageModel model(ctx(), built.path);
  std::string text;
  for (int i = 0; i < 12; ++i) text += (i % 3 ? "abc ab " : "bc a abc ");
  const int64_t context = 8;
  const Perplexity got = model.perplexity(text, context);
  const std::vector<int32_t> tokens = model.tokenizer().encode(text, {.addSpecial = true, .parseSpecial = false});
  const TokenVocabulary& words = model.tokenizer().vocabulary();
  const int64_t chunks = static_cast<int64_t>(tokens.size()) / context;
  ASSERT_GE(chunks, 2);
  double nll = 0;
  int64_t scored = 0;
  for (int64_t c = 0; c < chunks; ++c) {
    std::vector<int32_t> chunk(tokens.begin() + c * context, tokens.begin() + (c + 1) * context);
    if (words.addBos) chunk[0] = words.bos;
    const std::vector<double> logits = reference::decoderLogitsRef(built.weights, chunk);
    for (int64_t j = context / 2; j < context - 1; ++j, ++scored) {
      const double* row = logits.data() + j * ModelBuilder::kVocab;
      const double top = *std::max_element(row, row + ModelBuilder::kVocab);
      double sum = 0;
      for (int64_t v = 0; v < ModelBuilder::kVocab; ++v) sum += std::exp(row[v] - top);
      nll += std::log(sum) + top - row[tokens[static_cast<std::size_t>(c * context + j + 1)]];
    }
  }
  EXPECT_EQ(got.chunks, chunks);
  EXPECT_EQ(got.scored, scored);
  EXPECT_NEAR(got.meanNll, nll / static_cast<double>(scored), 1e-4);
  EXPECT_NEAR(got.perplexity, std::exp(nll / static_cast<double>(scored)), 1e-4 * got.perplexity);
  EXPECT_EQ(invalidArgumentOf([&] { model.perplexity("abc", context); }), "text");
  EXPECT_EQ(invalidArgumentOf([&] { model.perplexity(text, 2); }), "context");
  EXPECT_EQ(invalidArgumentOf([&] { model.perplexity(text, model.contextLength() + 1); }), "context");
  std::filesystem::remove(built.path);
}

TEST_F(VkattnTest, TiedOutputLlama3RopeFreqsAndPartialRotary) {
  expectLogitsMatch(ctx(), ModelSpec{.layers = 1, .rotaryDim = 8, .theta = 500000.0, .tied = true, .ropeFreqs = true},
                    "tied", 3);
}

TEST_F(VkattnTest, QuantizedMatricesMatchTheirDequantizedReference) {
  for (GgmlType type : {GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::F16})
    expectLogitsMatch(ctx(), ModelSpec{.modelDim = 64, .ffnDim = 96, .matrices = type}, ggmlTypeName(type), 4);
  // The K-quants: super-blocks of 256 along every matrix's input dimension.
  for (GgmlType type : {GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K})
    expectLogitsMatch(ctx(),
                      ModelSpec{.layers = 1,
                                .modelDim = 256,
                                .ffnDim = 256,
                                .heads = 4,
                                .kvHeads = 2,
                                .headDim = 64,
                                .rotaryDim = 64,
                                .matrices = type},
                      ggmlTypeName(type), 4);
  // F16 matrices under the GPU profile's kernels, and rows whose length is not a multiple of 32
  // (ffn 80: those matrices are widened to f32).
  Context gpu({.profile = KernelProfile::Gpu});
  expectLogitsMatch(gpu, ModelSpec{.modelDim = 64, .ffnDim = 96, .matrices = GgmlType::F16}, "f16_gpu", 4);
  expectLogitsMatch(gpu, ModelSpec{.modelDim = 64, .ffnDim = 80, .matrices = GgmlType::F16}, "f16_gpu_ffn80", 4);
  // Width 80: the gate and up matrices widened to f32 too, and stacked as such.
  expectLogitsMatch(ctx(), ModelSpec{.modelDim = 80, .ffnDim = 96, .heads = 5, .kvHeads = 1, .matrices = GgmlType::F16},
                    "f16_d80", 4);
}

TEST_F(VkattnTest, KeyValueCacheFormats) {
  // Keys and values stored as bf16, Q8_0 or Q4_0: the prompt's logits and a few decoding steps
  // against the reference with f32 keys and values, within what the format's rounding moves them.
  const BuiltModel built = ModelBuilder(ModelSpec{.headDim = 32, .rotaryDim = 32}, 10).write("kvformats");
  const std::vector<int32_t> ids = someIds(13, 10);
  const std::vector<double> ref = reference::decoderLogitsRef(built.weights, ids);
  for (const auto& [format, atol] :
       {std::pair{DType::BF16, 5e-3}, std::pair{DType::Q8_0, 1.5e-2}, std::pair{DType::Q4_0, 0.2}}) {
    LanguageModel model(ctx(), built.path, {.kvFormat = format});
    EXPECT_TRUE(allClose(model.logits(ids), ref, atol, 0.0)) << toString(format);
    GenerateOptions options;
    options.maxTokens = 3;
    options.logits = true;
    const std::vector<int32_t> prompt(ids.begin(), ids.begin() + 10);
    const Generation g = model.generate(prompt, options);
    ASSERT_EQ(g.logits.size(), 3u * ModelBuilder::kVocab);
    std::vector<int32_t> fed = prompt;
    for (std::size_t step = 0; step < 3; ++step) {
      const std::vector<double> full = reference::decoderLogitsRef(built.weights, fed);
      const std::vector<double> last(full.end() - ModelBuilder::kVocab, full.end());
      const std::vector<float> got(g.logits.begin() + static_cast<std::ptrdiff_t>(step * ModelBuilder::kVocab),
                                   g.logits.begin() + static_cast<std::ptrdiff_t>((step + 1) * ModelBuilder::kVocab));
      EXPECT_TRUE(allClose(got, last, atol, 0.0)) << toString(format) << " step " << step;
      fed.push_back(g.ids[step]);
    }
  }
  EXPECT_EQ(invalidArgumentOf([&] { LanguageModel(ctx(), built.path, {.kvFormat = DType::I32}); }), "format");
  std::filesystem::remove(built.path);
  const BuiltModel narrow = ModelBuilder(ModelSpec{}, 10).write("narrowheads");  // head dim 16
  EXPECT_EQ(invalidArgumentOf([&] { LanguageModel(ctx(), narrow.path, {.kvFormat = DType::Q8_0}); }), "format");
  std::filesystem::remove(narrow.path);
}

TEST_F(VkattnTest, MatricesSplitIntoRowBlocksGiveTheSameLogits) {
  // Feed-forward and output matrices kept as blocks of a few rows (as a large vocabulary's output
  // projection is where storage buffers are small), f32 and Q8_0, tied output included.
  for (GgmlType type : {GgmlType::F32, GgmlType::Q8_0})
    for (bool tied : {false, true}) {
      const BuiltModel built = ModelBuilder(ModelSpec{.tied = tied, .matrices = type}, 11).write("blocks");
      LanguageModel model(ctx(), built.path, {.maxWeightBytes = 1000});  // 3 .. 15 rows a block
      const std::vector<int32_t> ids = someIds(7, 11);
      EXPECT_TRUE(allClose(model.logits(ids), reference::decoderLogitsRef(built.weights, ids), kLogitAtol, kLogitRtol))
          << ggmlTypeName(type) << (tied ? " tied" : "");
      GenerateOptions options;
      options.maxTokens = 2;
      EXPECT_EQ(model.generate(ids, options).ids.size(), 2u);
      std::filesystem::remove(built.path);
    }
}

TEST_F(VkattnTest, DecodingStepsMatchFullForwardPasses) {
  // Greedy generation with the KV cache: every step's logits equal the last row of a fresh
  // forward pass over everything fed so far, and the tokens are the reference's argmax.
  const BuiltModel built = ModelBuilder(ModelSpec{}, 5).write("steps");
  LanguageModel model(ctx(), built.path);
  expectStepsMatchFullPasses(model, built, someIds(5, 5), 6);
  std::filesystem::remove(built.path);
}

// Block-format matrices: the pre-norms fold into the products that read them (no RMSNorm
// dispatch at all on the CPU profile, where prompts run the matrix-vector kernel too), and q, k
// and v are one product followed by one RoPE-and-append dispatch (no plain RoPE); on the GPU
// profile a prompt's tiled products read a normalized copy and the decoded tokens fold.
TEST_F(VkattnTest, DecoderStepsFoldNormsAndStackProjections) {
  const ModelSpec spec{.modelDim = 64, .ffnDim = 96, .matrices = GgmlType::Q8_0};
  const BuiltModel built = ModelBuilder(spec, 6).write("prenorm");
  {
    Context fresh;
    LanguageModel model(fresh, built.path);
    expectStepsMatchFullPasses(model, built, someIds(11, 6), 3);
    std::vector<std::string> names;
    for (const auto& pipeline : fresh.pipelines().all()) names.push_back(pipeline->name());
    const auto has = [&](const std::string& prefix) {
      return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
    };
    EXPECT_FALSE(has("rms_norm"));
    EXPECT_FALSE(has("rope_f32"));
    EXPECT_TRUE(has("rope_append"));
  }
  Context gpu({.profile = KernelProfile::Gpu});
  LanguageModel model(gpu, built.path);
  expectStepsMatchFullPasses(model, built, someIds(11, 7), 3);
  std::filesystem::remove(built.path);
}

// A small decoder of `arch` with Q8_0 matrices (q, k and v stacked into one product), GQA 2:1,
// that never samples its end-of-sequence token.
ModelSpec smallDecoder(const std::string& arch, int64_t layers) {
  return {.arch = arch,
          .layers = layers,
          .modelDim = 64,
          .ffnDim = 96,
          .heads = 4,
          .kvHeads = 2,
          .headDim = 32,
          .rotaryDim = 32,
          .tied = arch.rfind("gemma", 0) == 0,
          .matrices = GgmlType::Q8_0,
          .neverEndsSequence = true};
}

// A decoded token takes at most five dispatches a layer on every architecture (the q/k/v product
// with RoPE, head norms and the cache append in its last workgroup; attention; o with its
// residual or post-norm; the gated product with the pre-norm folded; down likewise), counted as
// the difference between a 3-layer and a 2-layer model, with Q8_0 matrices; and the fused steps
// keep the logits on the reference.
TEST_F(VkattnTest, DecodedTokensTakeFiveDispatchesALayerOnEveryArchitecture) {
  for (const std::string arch : {"llama", "qwen2", "qwen3", "gemma2", "gemma3"}) {
    std::vector<uint64_t> perToken;
    for (int64_t layers : {2, 3}) {
      const ModelSpec spec = smallDecoder(arch, layers);
      const BuiltModel built = ModelBuilder(spec, 15).write("dispatches_" + arch);
      LanguageModel model(ctx(), built.path);
      if (layers == 2) expectStepsMatchFullPasses(model, built, someIds(3, 15), 3);
      const auto dispatchesFor = [&](int64_t tokens) {
        GenerateOptions options;
        options.maxTokens = tokens;
        options.replay = false;  // each token recorded afresh, so the context's recorder counts it
        const uint64_t before = ctx().recorder().dispatchesRecorded();
        model.generate(someIds(3, 16), options);
        return ctx().recorder().dispatchesRecorded() - before;
      };
      perToken.push_back(dispatchesFor(3) - dispatchesFor(2));
      std::filesystem::remove(built.path);
    }
    EXPECT_LE(perToken[1] - perToken[0], 5u) << arch << ": dispatches a decoded token takes for one more layer";
  }
}

// A decoded token replays the step recorded at the first one (GenerateOptions::replay): the host
// records nothing more per token, and the tokens and logits are those of recording every token
// afresh, on every architecture, greedy and sampled (the draw's number written to the device).
TEST_F(VkattnTest, DecodedTokensReplayOneRecordingOnEveryArchitecture) {
  for (const std::string arch : {"llama", "qwen2", "qwen3", "gemma2", "gemma3"}) {
    const ModelSpec spec = smallDecoder(arch, 2);
    const BuiltModel built = ModelBuilder(spec, 19).write("replay_" + arch);
    LanguageModel model(ctx(), built.path);
    const auto run = [&](bool replay, bool logits, int64_t tokens, float temperature) {
      GenerateOptions options;
      options.maxTokens = tokens;
      options.replay = replay;
      options.logits = logits;
      options.sampler = {.temperature = temperature, .topK = 20, .seed = 5};
      return model.generate(someIds(3, 19), options);
    };
    for (float temperature : {0.0f, 0.9f}) {
      const Generation replayed = run(true, false, 6, temperature), recorded = run(false, false, 6, temperature);
      EXPECT_EQ(replayed.ids, recorded.ids) << arch << ", temperature " << temperature;
    }
    const Generation replayed = run(true, true, 6, 0.0f), recorded = run(false, true, 6, 0.0f);
    EXPECT_EQ(replayed.ids, recorded.ids) << arch;
    EXPECT_TRUE(allClose(replayed.logits, std::vector<double>(recorded.logits.begin(), recorded.logits.end()),
                         kLogitAtol, kLogitRtol))
        << arch;
    const auto dispatchesFor = [&](bool replay, int64_t tokens) {
      const uint64_t before = ctx().recorder().dispatchesRecorded();
      run(replay, false, tokens, 0.0f);
      return ctx().recorder().dispatchesRecorded() - before;
    };
    EXPECT_EQ(dispatchesFor(true, 4), dispatchesFor(true, 3)) << arch << ": a replayed token records nothing";
    EXPECT_GT(dispatchesFor(false, 4), dispatchesFor(false, 3)) << arch;
    std::filesystem::remove(built.path);
  }
}

// Greedy decoding takes its argmax on the device unless the logits are asked for; both pick the
// host sampler's tokens.
TEST_F(VkattnTest, GreedyDecodingOnTheDeviceMatchesTheHostSampler) {
  const BuiltModel built =
      ModelBuilder(ModelSpec{.matrices = GgmlType::Q8_0, .neverEndsSequence = true}, 17).write("greedy");
  LanguageModel model(ctx(), built.path);
  GenerateOptions options;
  options.maxTokens = 6;
  const Generation device = model.generate(someIds(4, 17), options);
  options.logits = true;
  const Generation host = model.generate(someIds(4, 17), options);
  EXPECT_EQ(device.ids, host.ids);
  TokenSampler greedy({});
  for (std::size_t step = 0; step < host.ids.size(); ++step)
    EXPECT_EQ(
        host.ids[step],
        greedy.next(std::span<const float>(host.logits).subspan(step * ModelBuilder::kVocab, ModelBuilder::kVocab)));
  std::filesystem::remove(built.path);
}

// Sampling draws on the device unless the logits are asked for; a seed gives the same tokens
// both ways: top k and top p on the device's candidates, the whole vocabulary (3000 tokens: a
// draw may land beyond the device's 1024 candidates and go to the host), Gemma 2's final softcap.
TEST_F(VkattnTest, SampledDecodingOnTheDeviceMatchesTheHostSampler) {
  struct Case {
    ModelSpec spec;
    SamplerOptions sampler;
  };
  const std::vector<Case> cases = {
      {{.matrices = GgmlType::Q8_0, .neverEndsSequence = true}, {.temperature = 0.8f, .topK = 40, .topP = 0.9f}},
      {{.matrices = GgmlType::Q8_0, .vocab = 3000, .neverEndsSequence = true}, {.temperature = 3.0f}},
      {{.arch = "gemma2", .neverEndsSequence = true, .finalSoftcap = 0.5f}, {.temperature = 1.0f, .topP = 0.7f}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const BuiltModel built = ModelBuilder(cases[i].spec, 23).write("sampled");
    LanguageModel model(ctx(), built.path);
    GenerateOptions options;
    options.maxTokens = 8;
    options.sampler = cases[i].sampler;
    options.sampler.seed = 1000 + i;
    const Generation device = model.generate(someIds(3, 23), options);
    options.logits = true;
    const Generation host = model.generate(someIds(3, 23), options);
    EXPECT_EQ(device.ids, host.ids) << "case " << i;
    // The host's tokens are the sampler's on the logits it saw.
    TokenSampler sampler(options.sampler);
    const auto vocab = static_cast<std::size_t>(cases[i].spec.vocab);
    for (std::size_t step = 0; step < host.ids.size(); ++step)
      EXPECT_EQ(host.ids[step], sampler.next(std::span<const float>(host.logits).subspan(step * vocab, vocab)));
    std::filesystem::remove(built.path);
  }
}

// A prompt fed in chunks (each chunk's queries over the cache the earlier ones filled): every
// step still matches the reference's full pass; chunks of 4 (4 + 4 + 3) and of 1, across Gemma 2's
// sliding window of 4 and Qwen3's head norms. A chunk below 1 is named.
TEST_F(VkattnTest, PromptsInChunksMatchTheReference) {
  for (const ModelSpec& spec : {ModelSpec{.matrices = GgmlType::Q8_0}, ModelSpec{.arch = "gemma2", .slidingWindow = 4},
                                ModelSpec{.arch = "qwen3"}}) {
    SCOPED_TRACE(spec.arch);
    const BuiltModel built = ModelBuilder(spec, 29).write("chunks");
    LanguageModel model(ctx(), built.path);
    for (int64_t chunk : {4, 1}) expectStepsMatchFullPasses(model, built, someIds(11, 29), 3, chunk);
    GenerateOptions bad;
    bad.promptChunk = 0;
    EXPECT_EQ(invalidArgumentOf([&] { model.generate(someIds(3, 29), bad); }), "promptChunk");
    std::filesystem::remove(built.path);
  }
}

TEST_F(VkattnTest, AttentionMapsMatchTheReferenceAndArriveStepByStep) {
  const BuiltModel built = ModelBuilder(ModelSpec{.layers = 2, .heads = 4, .kvHeads = 2}, 6).write("maps");
  LanguageModel model(ctx(), built.path);
  std::vector<int64_t> stepRows;
  expectMapsMatch(model, built, someIds(4, 6), 4, [&](const GenerationStep& step) {
    EXPECT_EQ(step.attention.size(), 2u);
    EXPECT_EQ(step.attention[0].rows, static_cast<int64_t>(step.ids.size()));
    EXPECT_EQ(step.attention[0].cols, step.position + static_cast<int64_t>(step.ids.size()));
    stepRows.push_back(step.attention[0].rows);
    return true;
  });
  EXPECT_EQ(stepRows, (std::vector<int64_t>{4, 1, 1, 1}));
  std::filesystem::remove(built.path);
}

TEST_F(VkattnTest, GenerationIsDeterministicUnderASeed) {
  const BuiltModel built = ModelBuilder(ModelSpec{.layers = 1}, 7).write("seeded");
  LanguageModel model(ctx(), built.path);
  GenerateOptions options;
  options.maxTokens = 12;
  options.sampler = {.temperature = 1.5f, .topK = 50, .topP = 0.95f, .seed = 42};
  const Generation a = model.generate(someIds(3, 7), options);
  const Generation b = model.generate(someIds(3, 7), options);
  EXPECT_EQ(a.ids, b.ids);
  options.sampler.seed = 43;
  EXPECT_NE(model.generate(someIds(3, 7), options).ids, a.ids);
  std::filesystem::remove(built.path);
}

TEST_F(VkattnTest, TextPromptsAreTokenizedWithBos) {
  const BuiltModel built = ModelBuilder(ModelSpec{.layers = 1}, 8).write("text");
  LanguageModel model(ctx(), built.path);
  GenerateOptions options;
  options.maxTokens = 3;
  const Generation g = model.generate("abc ab", options);
  ASSERT_FALSE(g.promptIds.empty());
  EXPECT_EQ(g.promptIds, model.tokenizer().encode("abc ab"));
  EXPECT_EQ(g.text, model.tokenizer().decode(g.ids));
  std::filesystem::remove(built.path);
}

TEST(TokenSampler, GreedyTopKAndTopPAndFrequencies) {
  const std::vector<float> logits = {0.0f, 2.0f, 1.0f, 2.0f, -1.0f};
  EXPECT_EQ(TokenSampler({}).next(logits), 1);  // ties go to the lower id
  TokenSampler topOne({.temperature = 1.0f, .topK = 1, .seed = 9});
  TokenSampler nucleus({.temperature = 1.0f, .topP = 0.3f, .seed = 9});
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(topOne.next(logits), 1);
    EXPECT_EQ(nucleus.next(logits), 1);  // token 1 alone holds more than 0.3
  }
  // Sampled frequencies follow softmax(logits / T) within 4 standard errors.
  TokenSampler sampler({.temperature = 2.0f, .seed = 1234});
  const int draws = 20000;
  std::vector<int> counts(logits.size());
  for (int i = 0; i < draws; ++i) ++counts[static_cast<std::size_t>(sampler.next(logits))];
  double total = 0;
  for (float l : logits) total += std::exp(l / 2.0);
  for (std::size_t i = 0; i < logits.size(); ++i) {
    const double p = std::exp(logits[i] / 2.0) / total;
    EXPECT_NEAR(counts[i] / double(draws), p, 4 * std::sqrt(p * (1 - p) / draws)) << "token " << i;
  }
  // top-k 2 keeps tokens 1 and 3 only.
  TokenSampler two({.temperature = 1.0f, .topK = 2, .seed = 5});
  for (int i = 0; i < 50; ++i) {
    const int32_t t = two.next(logits);
    EXPECT_TRUE(t == 1 || t == 3) << t;
  }
  EXPECT_EQ(invalidArgumentOf([] { TokenSampler({.temperature = -1.0f}); }), "temperature");
  EXPECT_EQ(invalidArgumentOf([] { TokenSampler({.topK = -2}); }), "topK");
  EXPECT_EQ(invalidArgumentOf([] { TokenSampler({.topP = 0.0f}); }), "topP");
  EXPECT_EQ(invalidArgumentOf([] { TokenSampler({}).next(std::vector<float>{1.0f, NAN}); }), "logits");
}

TEST_F(VkattnTest, FilesVkattnCannotRunAreClearErrors) {
  const ModelSpec spec{.layers = 1};
  {
    const BuiltModel built = ModelBuilder(spec, 9).write("arch", {}, {{"general.architecture", GgufValue("gptneox")}});
    try {
      LanguageModel model(ctx(), built.path);
      ADD_FAILURE() << "an unknown architecture loaded";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("general.architecture"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("gptneox"), std::string::npos) << e.what();
    }
    std::filesystem::remove(built.path);
  }
  {
    const BuiltModel built = ModelBuilder(spec, 9).write("missing", "blk.0.ffn_up.weight");
    EXPECT_EQ(invalidArgumentOf([&] { LanguageModel(ctx(), built.path); }), "blk.0.ffn_up.weight");
    std::filesystem::remove(built.path);
  }
  {
    const BuiltModel built =
        ModelBuilder(spec, 9).write("shape", {}, {{"llama.feed_forward_length", GgufValue(uint32_t{64})}});
    EXPECT_EQ(invalidArgumentOf([&] { LanguageModel(ctx(), built.path); }), "blk.0.ffn_gate.weight");
    std::filesystem::remove(built.path);
  }
  {
    const BuiltModel built =
        ModelBuilder(spec, 9).write("heads", {}, {{"llama.attention.head_count_kv", GgufValue(uint32_t{3})}});
    EXPECT_EQ(invalidArgumentOf([&] { LanguageModel(ctx(), built.path); }), "llama.attention.head_count_kv");
    std::filesystem::remove(built.path);
  }
  {
    const BuiltModel built = ModelBuilder(spec, 9).write("yarn", {}, {{"llama.rope.scaling.type", GgufValue("yarn")}});
    try {
      LanguageModel model(ctx(), built.path);
      ADD_FAILURE() << "yarn rope scaling loaded";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("llama.rope.scaling.type"), std::string::npos) << e.what();
    }
    std::filesystem::remove(built.path);
  }
  {
    const BuiltModel built = ModelBuilder(spec, 9).write("limits");
    LanguageModel model(ctx(), built.path, {.contextLength = 8});
    EXPECT_EQ(invalidArgumentOf([&] { model.logits(someIds(9, 1)); }), "ids");
    EXPECT_EQ(invalidArgumentOf([&] { model.logits(std::vector<int32_t>{0, int32_t(ModelBuilder::kVocab)}); }), "ids");
    EXPECT_EQ(invalidArgumentOf([&] { model.generate(std::vector<int32_t>{}, {}); }), "prompt");
    GenerateOptions bad;
    bad.maxTokens = -1;
    EXPECT_EQ(invalidArgumentOf([&] { model.generate(someIds(2, 1), bad); }), "maxTokens");
    std::filesystem::remove(built.path);
  }
}

}  // namespace
}  // namespace vkattn::test
