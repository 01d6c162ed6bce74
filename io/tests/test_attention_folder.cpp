// The attention folder (vkattn/io/attention_folder.hpp): both layouts written and read back
// unchanged, token files labelling the axes they fit, and bad folders (missing files, wrong
// shapes, token counts that do not match the maps, NaN) refused with the file and the fault named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "vkattn/core/error.hpp"
#include "vkattn/io/attention_folder.hpp"
#include "vkattn/io/npy.hpp"

namespace vkattn::io {
namespace {

namespace fs = std::filesystem;

fs::path freshFolder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("vkattn_attention_folder_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void writeText(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

std::string readText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Attention-like values: distinct per element, so that a transposed or shifted read shows.
std::vector<float> ramp(int64_t n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i % 97) / 97.0f;
  return v;
}

AttentionMap map(int64_t heads, int64_t rows, int64_t cols, float offset = 0) {
  AttentionMap m{heads, rows, cols, ramp(heads * rows * cols)};
  for (float& w : m.weights) w += offset;
  return m;
}

// The InvalidArgument `f` throws: its argument must contain `argument`, its problem `problem`.
void expectInvalid(const std::function<void()>& f, const std::string& argument, const std::string& problem) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(e.argument().find(argument), std::string::npos) << e.what();
    EXPECT_NE(e.problem().find(problem), std::string::npos) << e.what();
    return;
  }
  ADD_FAILURE() << "no InvalidArgument naming " << argument << " (" << problem << ")";
}

void expectSame(const std::vector<AttentionMap>& got, const std::vector<AttentionMap>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t l = 0; l < got.size(); ++l) {
    EXPECT_EQ(got[l].heads, expected[l].heads) << "layer " << l;
    EXPECT_EQ(got[l].rows, expected[l].rows) << "layer " << l;
    EXPECT_EQ(got[l].cols, expected[l].cols) << "layer " << l;
    EXPECT_EQ(got[l].weights, expected[l].weights) << "layer " << l;
  }
}

TEST(AttentionFolder, MapsRoundTripInEveryRank) {
  const std::vector<std::string> rows = {"le", "chat", "\xc3\xa9t\xc3\xa9"}, cols = {"the", "cat", "was", "<eos>", "."};
  for (const Shape& shape : std::vector<Shape>{{3, 5}, {2, 3, 5}, {4, 2, 3, 5}}) {
    const fs::path dir = freshFolder("maps") / "nested";  // created by the writer
    const std::vector<float> values = ramp(elementCount(shape));
    writeAttentionFolder(dir, shape, values, rows, cols);
    EXPECT_TRUE(isAttentionFolder(dir));
    EXPECT_FALSE(isAttentionDump(dir));
    EXPECT_EQ(readText(dir / kRowTokensFile), "le\nchat\n\xc3\xa9t\xc3\xa9\n");
    EXPECT_EQ(readNpy(dir / kAttentionFile).shape, shape);

    const AttentionFolder folder = readAttentionFolder(dir);
    const int64_t layers = shape.size() == 4 ? shape[0] : 1, heads = shape.size() >= 3 ? shape[shape.size() - 3] : 1;
    ASSERT_EQ(static_cast<int64_t>(folder.layers.size()), layers) << toString(shape);
    std::vector<float> all;
    for (const AttentionMap& m : folder.layers) {
      EXPECT_EQ(m.heads, heads);
      EXPECT_EQ(m.rows, 3);
      EXPECT_EQ(m.cols, 5);
      all.insert(all.end(), m.weights.begin(), m.weights.end());
    }
    EXPECT_EQ(all, values) << toString(shape);
    EXPECT_EQ(folder.tokens.rows, rows);
    EXPECT_EQ(folder.tokens.cols, cols);
    EXPECT_TRUE(folder.tokens.note.empty());
  }
}

TEST(AttentionFolder, DumpRoundTrip) {
  const fs::path dir = freshFolder("dump");
  AttentionDump dump;
  dump.sourceTokens = {"The", "cat", "<eos>"};
  dump.targetTokens = {"Le", "chat", ".", "<eos>"};
  for (int l = 0; l < 2; ++l) {
    dump.encoderSelf.push_back(map(2, 3, 3, static_cast<float>(l)));
    dump.decoderSelf.push_back(map(2, 4, 4, static_cast<float>(l)));
    dump.cross.push_back(map(2, 4, 3, static_cast<float>(l)));
  }
  writeAttentionDump(dir, dump);
  EXPECT_TRUE(fs::exists(dir / "encoder_self_layer1.npy"));
  EXPECT_TRUE(fs::exists(dir / "cross_layer0.npy"));
  EXPECT_EQ(dumpLayerFile(dir, kDecoderSelfKind, 1), dir / "decoder_self_layer1.npy");
  EXPECT_EQ(readText(dir / kTargetTokensFile), "Le\nchat\n.\n<eos>\n");
  EXPECT_TRUE(isAttentionDump(dir));
  EXPECT_FALSE(isAttentionFolder(dir));

  const AttentionDump back = readAttentionDump(dir);
  expectSame(back.encoderSelf, dump.encoderSelf);
  expectSame(back.decoderSelf, dump.decoderSelf);
  expectSame(back.cross, dump.cross);
  EXPECT_EQ(back.sourceTokens, dump.sourceTokens);
  EXPECT_EQ(back.targetTokens, dump.targetTokens);
  EXPECT_TRUE(back.note.empty());
}

TEST(AttentionFolder, DumpOfOneKindWithoutTokensReadsPositions) {
  const fs::path dir = freshFolder("cross_only");
  writeNpy(dir / "cross_layer0.npy", {1, 2, 3}, ramp(6));
  writeNpy(dir / "cross_layer2.npy", {1, 2, 3}, ramp(6));  // past a gap: not read
  const AttentionDump d = readAttentionDump(dir);
  EXPECT_EQ(d.cross.size(), 1u);
  EXPECT_TRUE(d.encoderSelf.empty());
  EXPECT_EQ(d.sourceTokens, (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(d.targetTokens, (std::vector<std::string>{"0", "1"}));
}

TEST(AttentionFolder, TokenFilesLabelTheAxesTheyFit) {
  const fs::path dir = freshFolder("tokens");
  writeNpy(dir / kAttentionFile, {2, 3}, ramp(6));
  // tokens.txt fits the columns only; rows fall back to positions. "\r\n" ends a line too.
  writeText(dir / kTokensFile, "a\r\nb\nc");
  AttentionFolder f = readAttentionFolder(dir);
  EXPECT_EQ(f.tokens.rows, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(f.tokens.cols, (std::vector<std::string>{"a", "b", "c"}));
  // An axis's own file wins; bytes that are not UTF-8 are escaped and noted with the file's name.
  writeText(dir / kRowTokensFile, "caf\xe9\nx\n");
  f = readAttentionFolder(dir);
  EXPECT_EQ(f.tokens.rows, (std::vector<std::string>{"caf\\xe9", "x"}));
  EXPECT_NE(f.tokens.note.find((dir / kRowTokensFile).string()), std::string::npos) << f.tokens.note;
  EXPECT_NE(f.tokens.note.find("line 1"), std::string::npos) << f.tokens.note;
}

TEST(AttentionFolder, MissingFilesAreNamed) {
  const fs::path dir = freshFolder("missing");
  EXPECT_FALSE(isAttentionFolder(dir));
  EXPECT_FALSE(isAttentionDump(dir));
  expectInvalid([&] { readAttentionFolder(dir); }, kAttentionFile, "cannot open");
  writeNpy(dir / kQueryFile, {2, 4}, ramp(8));
  EXPECT_FALSE(isAttentionFolder(dir)) << "q.npy without k.npy";
  expectInvalid([&] { readQueryKeyArrays(dir); }, kKeyFile, "cannot open");
  expectInvalid([&] { readTokenFile(dir / "nope.txt", "--tokens"); }, "--tokens", "nope.txt");
  const AxisTokenFiles files{{}, {(dir / "nope.txt").string(), "--row-tokens"}, {}};
  expectInvalid([&] { readAxisTokens(files, 2, 2); }, "--row-tokens", "cannot read");
}

TEST(AttentionFolder, WrongShapesAreNamed) {
  const fs::path dir = freshFolder("shapes");
  writeNpy(dir / kAttentionFile, {6}, ramp(6));
  expectInvalid([&] { readAttentionFolder(dir); }, kAttentionFile, "expected [layers?, heads?, rows, cols]");
  writeNpy(dir / kAttentionFile, {1, 1, 1, 2, 3}, ramp(6));
  expectInvalid([&] { readAttentionFolder(dir); }, kAttentionFile, "has shape [1, 1, 1, 2, 3]");
  writeNpy(dir / kAttentionFile, {0, 3}, {});
  expectInvalid([&] { readAttentionFolder(dir); }, kAttentionFile, "empty");
  writeText(dir / kAttentionFile, "not numpy");
  expectInvalid([&] { readAttentionFolder(dir); }, kAttentionFile, "not a .npy file");

  writeNpy(dir / kQueryFile, {2, 3, 4}, ramp(24));
  writeNpy(dir / kKeyFile, {2, 5, 8}, ramp(80));
  expectInvalid([&] { readQueryKeyArrays(dir); }, kKeyFile, "does not match q.npy's [2, 3, 4]");

  const fs::path dump = freshFolder("dump_shapes");
  writeNpy(dump / "encoder_self_layer0.npy", {3, 3}, ramp(9));
  expectInvalid([&] { readAttentionDump(dump); }, "encoder_self_layer0.npy", "expected [heads, rows, cols]");
  writeNpy(dump / "encoder_self_layer0.npy", {2, 3, 3}, ramp(18));
  writeNpy(dump / "encoder_self_layer1.npy", {1, 3, 3}, ramp(9));
  expectInvalid([&] { readAttentionDump(dump); }, "encoder_self_layer1.npy", "unlike layer 0's [2, 3, 3]");
}

TEST(AttentionFolder, MismatchedTokenCountsAreNamed) {
  const fs::path dir = freshFolder("counts");
  writeNpy(dir / kAttentionFile, {2, 3}, ramp(6));
  writeText(dir / kColTokensFile, "a\nb\n");
  expectInvalid([&] { readAttentionFolder(dir); }, kColTokensFile, "has 2 tokens; the map has 3");
  fs::remove(dir / kColTokensFile);
  writeText(dir / kTokensFile, "a\nb\nc\nd\n");
  expectInvalid([&] { readAttentionFolder(dir); }, kTokensFile, "the map has 2 rows and 3 columns");

  const fs::path dump = freshFolder("dump_counts");
  writeNpy(dump / "cross_layer0.npy", {1, 2, 3}, ramp(6));
  writeText(dump / kSourceTokensFile, "x\ny\n");
  expectInvalid([&] { readAttentionDump(dump); }, kSourceTokensFile, "has 2 tokens; the maps have 3");
  // The encoder's map fixes the source count; cross's columns must agree with it.
  writeText(dump / kSourceTokensFile, "x\ny\n");
  writeNpy(dump / "encoder_self_layer0.npy", {1, 2, 2}, ramp(4));
  expectInvalid([&] { readAttentionDump(dump); }, "cross_layer0.npy", "the tokens make it 2 x 2");
}

TEST(AttentionFolder, NaNIsNamed) {
  const fs::path dir = freshFolder("nan");
  writeNpy(dir / kAttentionFile, {1, 2}, {0.5f, std::numeric_limits<float>::quiet_NaN()});
  expectInvalid([&] { readAttentionFolder(dir); }, kAttentionFile, "NaN");
  const fs::path dump = freshFolder("dump_nan");
  writeNpy(dump / "decoder_self_layer0.npy", {1, 1, 1}, {std::numeric_limits<float>::infinity()});
  expectInvalid([&] { readAttentionDump(dump); }, "decoder_self_layer0.npy", "NaN or infinity");
}

TEST(AttentionFolder, WritersRefuseWhatTheReadersWould) {
  const fs::path dir = freshFolder("bad_writes");
  expectInvalid([&] { writeAttentionFolder(dir, {6}, ramp(6), {}, {}); }, kAttentionFile, "expected [rows, cols]");
  expectInvalid(
      [&] {
        writeAttentionFolder(dir, {2, 3}, ramp(5), {"a", "b"}, {"x", "y", "z"});
      },
      kAttentionFile, "holds 6 values; given 5");
  expectInvalid(
      [&] {
        writeAttentionFolder(dir, {2, 3}, ramp(6), {"a"}, {"x", "y", "z"});
      },
      dir.string(), "1 row and 3 column tokens for a map of 2 x 3");

  AttentionDump dump;
  dump.cross.push_back(map(1, 2, 3));
  dump.sourceTokens = {"x", "y", "z"};
  dump.targetTokens = {"a"};
  expectInvalid([&] { writeAttentionDump(dir, dump); }, "cross_layer0.npy", "the tokens make it 1 x 3");
  dump.targetTokens = {"a", "b"};
  dump.cross.push_back(map(2, 2, 3));
  expectInvalid([&] { writeAttentionDump(dir, dump); }, "cross_layer1.npy", "unlike layer 0's [1, 2, 3]");
  dump.cross[1] = map(1, 2, 3);
  dump.cross[1].weights.pop_back();
  expectInvalid([&] { writeAttentionDump(dir, dump); }, "cross_layer1.npy", "holds 6 values; given 5");
}

}  // namespace
}  // namespace vkattn::io
