// The tiny English->French model on vkattn's kernels: the documents' example sentence and
// held-out sentences (never seen in training) translate exactly; the attention maps it exposes
// are probability rows of the documented shapes; bad model files and inputs are clear errors.
#include <filesystem>
#include <fstream>
#include <numeric>

#include "support/test_context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/models/tokenizer.hpp"
#include "vkattn/models/translation_model.hpp"

namespace vkattn::test {
namespace {

const char* kSentence = "The agreement on the European Economic Area was signed in August 1992.";
const char* kFrench = "L'accord sur la zone économique européenne a été signé en août 1992.";

class Translation : public VkattnTest {
 protected:
  static TranslationModel& model() {
    static TranslationModel m(sharedContext(), defaultModelDirectory());
    return m;
  }
};

std::vector<std::pair<std::string, std::string>> heldOut(std::size_t count) {
  std::ifstream in(defaultModelDirectory() / "en_fr.heldout.tsv");
  std::vector<std::pair<std::string, std::string>> pairs;
  std::string line;
  while (pairs.size() < count && std::getline(in, line)) {
    const auto tab = line.find('\t');
    if (tab != std::string::npos) pairs.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  return pairs;
}

TEST(Tokenizer, SplitsPunctuationAndElision) {
  EXPECT_EQ(tokenizeWords("  L'accord sur la zone, signé en août 1992. "),
            (std::vector<std::string>{"L'", "accord", "sur", "la", "zone", ",", "signé", "en", "août", "1992", "."}));
  EXPECT_EQ(detokenizeWords({"L'", "accord", "a", "été", "signé", "d'", "abord", "?"}),
            "L'accord a été signé d'abord?");
  EXPECT_EQ(detokenizeWords(tokenizeWords(kFrench)), kFrench);
  EXPECT_TRUE(tokenizeWords(" \t\n").empty());
}

TEST_F(Translation, DocumentsSentenceIsExact) {
  const auto t = model().translate(kSentence);
  EXPECT_EQ(t.text, kFrench);
  EXPECT_EQ(t.targetTokens.back(), "<eos>");
}

TEST_F(Translation, HeldOutSentencesAreExact) {
  const auto pairs = heldOut(12);
  ASSERT_EQ(pairs.size(), 12u) << "assets/models/en_fr.heldout.tsv is missing or short";
  for (const auto& [english, french] : pairs) EXPECT_EQ(model().translate(english).text, french) << english;
}

TEST_F(Translation, AttentionMapsAreProbabilityRows) {
  const auto t = model().translate(kSentence, {.attention = true, .logits = true});
  const auto S = static_cast<int64_t>(t.sourceTokens.size()), T = static_cast<int64_t>(t.targetTokens.size());
  ASSERT_EQ(static_cast<int64_t>(t.encoderSelf.size()), model().layersEncoder());
  ASSERT_EQ(static_cast<int64_t>(t.cross.size()), model().layersDecoder());
  ASSERT_EQ(static_cast<int64_t>(t.logits.size()), T * model().targetVocabSize());
  const auto check = [](const AttentionMap& m, int64_t rows, int64_t cols, bool causal) {
    ASSERT_EQ(m.rows, rows);
    ASSERT_EQ(m.cols, cols);
    for (int64_t h = 0; h < m.heads; ++h)
      for (int64_t r = 0; r < rows; ++r) {
        double sum = 0;
        for (int64_t c = 0; c < cols; ++c) {
          const float w = m.at(h, r, c);
          EXPECT_GE(w, 0.0f);
          if (causal && c > r) {
            EXPECT_EQ(w, 0.0f) << "decoder self-attention sees a future token";
          }
          sum += w;
        }
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
  };
  for (const auto& m : t.encoderSelf) check(m, S, S, false);
  for (const auto& m : t.decoderSelf) check(m, T, T, true);
  for (const auto& m : t.cross) check(m, T, S, false);
  // Greedy decoding picked each step's argmax.
  const int64_t V = model().targetVocabSize();
  for (int64_t s = 0; s < T; ++s) {
    const auto row = t.logits.begin() + s * V;
    EXPECT_EQ(std::max_element(row, row + V) - row, t.targetIds[s]);
  }
}

TEST_F(Translation, UnknownWordsBecomeUnk) {
  const auto t = model().translate("The zyzzyva was signed.");
  EXPECT_EQ(t.sourceTokens[1], "zyzzyva") << "tokens are shown as typed";
  EXPECT_EQ(t.sourceIds[1], Vocabulary::kUnk);
  EXPECT_EQ(t.sourceIds.back(), Vocabulary::kEos);
}

TEST_F(Translation, BadInputIsNamed) {
  try {
    model().translate("   ");
    ADD_FAILURE() << "empty sentence accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "english");
  }
  std::string tooLong;
  for (int i = 0; i < 100; ++i) tooLong += "the ";
  EXPECT_THROW(model().translate(tooLong), InvalidArgument);
  EXPECT_THROW(model().translate(kSentence, {.maxTokens = 0}), InvalidArgument);
}

TEST_F(VkattnTest, CorruptModelFilesAreClearErrors) {
  const auto dir = std::filesystem::temp_directory_path() / "vkattn_bad_model";
  std::filesystem::create_directories(dir);
  for (const char* vocab : {"en_fr.src.txt", "en_fr.tgt.txt"})
    std::filesystem::copy_file(defaultModelDirectory() / vocab, dir / vocab,
                               std::filesystem::copy_options::overwrite_existing);
  // Truncated weights.
  {
    std::ifstream in(defaultModelDirectory() / "en_fr.safetensors", std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream out(dir / "en_fr.safetensors", std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  EXPECT_THROW(TranslationModel(ctx(), dir), InvalidArgument);
  // A vocabulary without the special tokens.
  {
    std::ofstream out(dir / "en_fr.src.txt", std::ios::trunc);
    out << "hello\nworld\n";
  }
  EXPECT_THROW(TranslationModel(ctx(), dir), InvalidArgument);
  EXPECT_THROW(TranslationModel(ctx(), dir / "missing"), InvalidArgument);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vkattn::test
