// The sources: the demo's maps are distributions with the intended peaks, the npy source reads
// attention arrays and q/k dumps (weights checked against a double-precision softmax) with token
// files, the GGUF source grows its maps a row per token, and bad files are errors that name them.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "sources/attention_math.hpp"
#include "sources/demo_source.hpp"
#include "sources/device_map.hpp"
#include "sources/npy_source.hpp"
#ifdef VKATTN_LANGUAGE_MODELS
#include "sources/language_model_source.hpp"
#include "vkattn/tokenizers/text_tokenizer.hpp"
#endif
#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/io/npy.hpp"

namespace vkattn::viewer {
namespace {

namespace fs = std::filesystem;
using test::VkattnTest;

class Sources : public VkattnTest {
 protected:
  fs::path folder(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("vkattn_viewer_test_" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
  }
};

std::vector<AttentionMap> hostLayers(const AttentionKind& kind) {
  std::vector<AttentionMap> layers;
  for (const auto& layer : kind.layers) layers.push_back(downloadLayer(layer));
  return layers;
}

void writeLines(const fs::path& path, const std::vector<std::string>& lines) {
  std::ofstream out(path);
  for (const auto& line : lines) out << line << "\n";
}

TEST_F(Sources, DemoMapsAreDistributionsWithTheIntendedPeaks) {
  DemoSource demo(ctx());
  const AttentionSet set = demo.compute("The agreement on the European Economic Area was signed in August 1992.");
  ASSERT_EQ(set.kinds.size(), 3u);
  const AttentionKind* cross = set.find("cross");
  ASSERT_NE(cross, nullptr);
  EXPECT_EQ(cross->rows(), 15);  // French tokens with <eos>
  EXPECT_EQ(cross->cols(), 14);  // English words, '.', <eos>
  EXPECT_EQ(cross->rowTokens[5], "économique");
  for (const AttentionKind& kind : set.kinds)
    for (const AttentionMap& layer : hostLayers(kind))
      for (int64_t h = 0; h < layer.heads; ++h)
        for (int64_t r = 0; r < layer.rows; ++r) {
          double sum = 0;
          for (int64_t c = 0; c < layer.cols; ++c) sum += layer.at(h, r, c);
          EXPECT_NEAR(sum, 1.0, 1e-4) << kind.id << " head " << h << " row " << r;
        }
  // Layer 0 head 0 of cross attention follows the alignment: "zone" <- "Area", "européenne" <- "European".
  const Matrix aligned = headMap(downloadLayer(cross->layers[0]), 0);
  EXPECT_EQ(rowArgmax(aligned, 4), 6);
  EXPECT_EQ(rowArgmax(aligned, 6), 4);
  // The decoder is causal: nothing above the diagonal.
  const AttentionKind* decoder = set.find("decoder");
  ASSERT_NE(decoder, nullptr);
  EXPECT_EQ(downloadLayer(decoder->layers[0]).at(0, 2, 5), 0.0f);
  EXPECT_EQ(decoder->colTokens.front(), "<bos>");
  EXPECT_THROW(demo.compute("   "), InvalidArgument);
}

// The viewer's refusals name its own flag.
TEST_F(Sources, AnEmptySentenceIsRefusedNamingThePromptFlag) {
  DemoSource demo(ctx());
  try {
    demo.compute("   ");
    ADD_FAILURE() << "an empty sentence was taken";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "--prompt");
  }
}

TEST_F(Sources, LongDemoIsOneSelfAttentionKind) {
  DemoSource demo(ctx(), 300);
  const AttentionSet set = demo.compute("");
  ASSERT_EQ(set.kinds.size(), 1u);
  EXPECT_EQ(set.kinds[0].rows(), 300);
  EXPECT_EQ(rowArgmax(headMap(downloadLayer(set.kinds[0].layers[0]), 0), 150), 150);
  EXPECT_EQ(rowArgmax(headMap(downloadLayer(set.kinds[0].layers[0]), 1), 150), 149) << "previous-token head";
}

TEST_F(Sources, NpyAttentionWithTokenFiles) {
  const fs::path dir = folder("attention");
  std::vector<float> values(2 * 3 * 4 * 5);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) / 7.0f;
  io::writeNpy(dir / "attention.npy", {2, 3, 4, 5}, values);
  writeLines(dir / "row_tokens.txt", {"我", "们", "好", "吗"});
  writeLines(dir / "col_tokens.txt", {"le", "chat", "était", "là", "<eos>"});
  NpySource source(ctx(), dir, {});
  const AttentionSet set = source.compute("");
  ASSERT_EQ(set.kinds.size(), 1u);
  const AttentionKind& kind = set.kinds[0];
  EXPECT_EQ(kind.layers.size(), 2u);
  EXPECT_EQ(kind.heads(), 3);
  EXPECT_EQ(kind.rowTokens[0], "我");
  EXPECT_EQ(kind.colTokens[2], "était");
  EXPECT_FLOAT_EQ(downloadLayer(kind.layers[1]).at(2, 3, 4), values[((1 * 3 + 2) * 4 + 3) * 5 + 4]);

  // A single 2-D file has one layer and one head; labels default to positions.
  io::writeNpy(dir / "single.npy", {2, 3}, {0.1f, 0.2f, 0.7f, 1, 0, 0});
  SourceOptions none;
  const AttentionSet single = NpySource(ctx(), dir / "single.npy", none).compute("");
  EXPECT_EQ(single.kinds[0].heads(), 1);
  EXPECT_EQ(single.kinds[0].colTokens[2], "2");
}

TEST_F(Sources, NpyQueryKeyDumpsGiveSoftmaxWeights) {
  const fs::path dir = folder("qk");
  const int64_t heads = 2, lq = 5, lk = 7, d = 16;
  std::mt19937 rng(3);
  std::normal_distribution<float> dist;
  std::vector<float> q(heads * lq * d), k(heads * lk * d);
  for (float& v : q) v = dist(rng);
  for (float& v : k) v = dist(rng);
  io::writeNpy(dir / "q.npy", {heads, lq, d}, q);
  io::writeNpy(dir / "k.npy", {heads, lk, d}, k);
  writeLines(dir / "tokens.txt", {"a", "b", "c", "d", "e", "f", "g"});  // fits the 7 columns only
  SourceOptions options;
  options.causal = true;
  const AttentionSet set = NpySource(ctx(), dir, options).compute("");
  const AttentionMap layer = downloadLayer(set.kinds[0].layers[0]);
  EXPECT_EQ(set.kinds[0].colTokens[6], "g");
  EXPECT_EQ(set.kinds[0].rowTokens[4], "4");
  double worst = 0;
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < lq; ++i) {
      std::vector<double> logits(lk);
      double top = -1e300, sum = 0;
      for (int64_t j = 0; j <= i; ++j) {
        double dot = 0;
        for (int64_t e = 0; e < d; ++e) dot += double(q[(h * lq + i) * d + e]) * k[(h * lk + j) * d + e];
        logits[j] = dot / std::sqrt(double(d));
        top = std::max(top, logits[j]);
      }
      for (int64_t j = 0; j <= i; ++j) sum += std::exp(logits[j] - top);
      for (int64_t j = 0; j < lk; ++j) {
        const double expected = j <= i ? std::exp(logits[j] - top) / sum : 0.0;
        worst = std::max(worst, std::fabs(expected - layer.at(h, i, j)));
      }
    }
  EXPECT_LT(worst, 1e-5);
}

TEST_F(Sources, BadFilesAreNamed) {
  const fs::path dir = folder("bad");
  auto message = [&](const fs::path& path, SourceOptions options = {}) -> std::string {
    try {
      NpySource(ctx(), path, options);
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(message(dir / "missing.npy").find("does not exist"), std::string::npos);
  EXPECT_NE(message(dir).find("neither attention.npy"), std::string::npos);
  { std::ofstream(dir / "junk.npy") << "not numpy"; }
  EXPECT_NE(message(dir / "junk.npy").find("junk.npy"), std::string::npos);
  io::writeNpy(dir / "flat.npy", {6}, {1, 2, 3, 4, 5, 6});
  EXPECT_NE(message(dir / "flat.npy").find("expected [layers?, heads?, rows, cols]"), std::string::npos);
  io::writeNpy(dir / "ok.npy", {2, 3}, {1, 0, 0, 0, 1, 0});
  writeLines(dir / "five.txt", {"a", "b", "c", "d", "e"});
  SourceOptions wrongTokens;
  wrongTokens.tokensFile = (dir / "five.txt").string();
  EXPECT_NE(message(dir / "ok.npy", wrongTokens).find("--tokens"), std::string::npos);
  SourceOptions missingTokens;
  missingTokens.rowTokensFile = (dir / "nope.txt").string();
  EXPECT_NE(message(dir / "ok.npy", missingTokens).find("--row-tokens"), std::string::npos);
}

#ifdef VKATTN_LANGUAGE_MODELS
// The GGUF source grows its maps a row per generated token, on the device; every published set
// and the last one agree with the model's own host-assembled maps (another code path) and are
// causal probability rows, labelled with the tokenizer's pieces.
TEST_F(Sources, LanguageModelMapsGrowARowPerToken) {
  const fs::path gguf = fs::path(VKATTN_ASSETS_DIR) / "models" / "tiny_llama" / "tiny-llama-f32.gguf";
  const std::string prompt = "And God said";
  const int64_t maxTokens = 6;
  LanguageModelSource source(ctx(), gguf, maxTokens);
  std::vector<int64_t> sizes;
  source.onProgress([&](AttentionSet set) { sizes.push_back(set.kinds.at(0).rows()); });
  const AttentionSet set = source.compute(prompt);

  LanguageModel model(ctx(), gguf);
  GenerateOptions options;
  options.maxTokens = maxTokens;
  options.attention = true;
  const Generation g = model.generate(prompt, options);
  const auto promptLength = static_cast<int64_t>(g.promptIds.size());
  std::vector<int64_t> expected;
  for (int64_t t = 0; t < maxTokens; ++t) expected.push_back(promptLength + t);
  EXPECT_EQ(sizes, expected);

  const AttentionKind& kind = set.kinds.at(0);
  ASSERT_TRUE(kind.causal);
  ASSERT_EQ(kind.layers.size(), g.attention.size());
  ASSERT_EQ(kind.rows(), g.attention[0].rows);
  EXPECT_EQ(kind.rowTokens.front(), "<|endoftext|>");
  EXPECT_EQ(kind.rowTokens, kind.colTokens);
  EXPECT_EQ(set.output, g.text);
  for (std::size_t l = 0; l < kind.layers.size(); ++l) {
    const AttentionMap grown = downloadLayer(kind.layers[l]);
    const AttentionMap& host = g.attention[l];
    ASSERT_EQ(grown.heads, host.heads);
    for (std::size_t i = 0; i < host.weights.size(); ++i)
      ASSERT_NEAR(grown.weights[i], host.weights[i], 1e-6) << "layer " << l << " element " << i;
    for (int64_t h = 0; h < grown.heads; ++h)
      for (int64_t r = 0; r < grown.rows; ++r) {
        double sum = 0;
        for (int64_t c = 0; c < grown.cols; ++c) {
          if (c > r) {
            ASSERT_EQ(grown.at(h, r, c), 0.0f);
          }
          sum += grown.at(h, r, c);
        }
        ASSERT_NEAR(sum, 1.0, 1e-5);
      }
  }

  // One prompt rule with the CLI and Python: an empty prompt is the start token alone.
  sizes.clear();
  const AttentionSet empty = source.compute("");
  EXPECT_EQ(empty.kinds.at(0).rowTokens.front(), "<|endoftext|>");
  EXPECT_EQ(sizes.size(), static_cast<std::size_t>(maxTokens));

  // A prompt past the context keeps its last tokens, leaves room for --max-tokens new ones and
  // says so.
  std::string longPrompt;
  while (static_cast<int64_t>(model.tokenizer().encode(longPrompt).size()) <= model.contextLength())
    longPrompt += "And God said, Let there be light: and there was light. ";
  sizes.clear();
  const AttentionSet cut = source.compute(longPrompt);
  ASSERT_EQ(sizes.size(), static_cast<std::size_t>(maxTokens));
  EXPECT_EQ(sizes.back(), model.contextLength() - 1);
  EXPECT_NE(cut.status.find("were cut to their last " + std::to_string(model.contextLength() - maxTokens)),
            std::string::npos)
      << cut.status;
}
#endif

}  // namespace
}  // namespace vkattn::viewer
