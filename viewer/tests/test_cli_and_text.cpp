// Command-line parsing (errors name the flag), UTF-8 handling for the font atlas, labels and token
// files, word splitting for the demo, region clamping for zoom, and the source's progress line.
#include <gtest/gtest.h>

#include "app/cli_args.hpp"
#include "app/source_runner.hpp"
#include "render/fonts.hpp"
#include "render/heatmap_view.hpp"
#include "sources/demo_source.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/io/utf8.hpp"

namespace vkattn::viewer {
namespace {

std::string errorArgument(const std::vector<std::string>& args) {
  try {
    parseArgs(args);
  } catch (const InvalidArgument& e) {
    return e.argument();
  }
  return "(no error)";
}

TEST(CliArgs, ParsesTheScreenshotFlags) {
  const ViewerArgs a =
      parseArgs({"--screenshot", "out.png", "--source", "npy:dir",  "--view",     "cross",   "--layer",    "1",
                 "--head",       "3",       "--size",   "640x480",  "--layout",   "l.json",  "--colormap", "magma",
                 "--log",        "--hide",  "0,-1",     "--region", "0:10.5,2:4", "--minus", "0:1"});
  EXPECT_TRUE(a.headless());
  EXPECT_EQ(a.source.spec, "npy:dir");
  EXPECT_EQ(a.view, "cross");
  EXPECT_EQ(*a.layer, 1);
  EXPECT_EQ(*a.head, 3);
  EXPECT_EQ(a.width, 640);
  EXPECT_EQ(a.height, 480);
  EXPECT_EQ(a.colormap, Colormap::Magma);
  EXPECT_EQ(a.scale, Scale::Log);
  EXPECT_EQ(a.hide, (std::vector<int64_t>{0, -1}));
  EXPECT_DOUBLE_EQ(a.region.rowEnd, 10.5);
  EXPECT_EQ(a.minus->head, 1);
  EXPECT_TRUE(parseArgs({}).source.spec.empty()) << "no --source: decided at start-up";
  EXPECT_EQ(parseArgs({}).reduction, Reduction::Max);
  EXPECT_FALSE(parseArgs({}).title.has_value()) << "no --title: the source's";
  EXPECT_TRUE(parseArgs({"--help"}).help);
}

TEST(CliArgs, ParsesWhatViewTakes) {
  const ViewerArgs a = parseArgs({"--reduce", "mean", "--title", "", "--print-ready", "--stretch"});
  EXPECT_EQ(a.reduction, Reduction::Mean);
  EXPECT_EQ(a.title, std::optional<std::string>("")) << "an empty title is a title: none drawn";
  EXPECT_TRUE(a.printReady);
  EXPECT_FALSE(a.headless());
  EXPECT_EQ(parseArgs({"--reduce", "max", "--title", "Heads"}).title, std::optional<std::string>("Heads"));
}

TEST(CliArgs, ErrorsNameTheFlag) {
  EXPECT_EQ(errorArgument({"--size", "12"}), "--size");
  EXPECT_EQ(errorArgument({"--size", "axb"}), "--size");
  EXPECT_EQ(errorArgument({"--size", "10x10"}), "--size");
  EXPECT_EQ(errorArgument({"--layer", "-1"}), "--layer");
  EXPECT_EQ(errorArgument({"--head"}), "--head");
  EXPECT_EQ(errorArgument({"--colormap", "jet"}), "--colormap");
  EXPECT_EQ(errorArgument({"--frobnicate"}), "--frobnicate");
  EXPECT_EQ(errorArgument({"--layout", "x.json"}), "--layout");
  EXPECT_EQ(errorArgument({"--region", "5:1,0:3"}), "--region");
  EXPECT_EQ(errorArgument({"--head", "1", "--aggregate", "mean"}), "--aggregate");
  EXPECT_EQ(errorArgument({"--minus", "3"}), "--minus");
  EXPECT_EQ(errorArgument({"--reduce", "median"}), "--reduce");
  EXPECT_EQ(errorArgument({"--title"}), "--title");
}

TEST(Text, BytesOutsideUtf8AreEscapedVisibly) {
  std::size_t escaped = 99;
  EXPECT_EQ(io::escapeInvalidUtf8("a\u00e9\u4e2d\U0001f600", &escaped), "a\u00e9\u4e2d\U0001f600");
  EXPECT_EQ(escaped, 0u);
  // Latin-1, a stray continuation byte, a truncated sequence, an overlong '/', U+D800, past U+10FFFF.
  EXPECT_EQ(io::escapeInvalidUtf8(std::string("caf\xe9") + "x", &escaped), "caf\\xe9x");
  EXPECT_EQ(escaped, 1u);
  EXPECT_EQ(io::escapeInvalidUtf8(std::string("\x80") + "a"), "\\x80a");
  EXPECT_EQ(io::escapeInvalidUtf8("\xe4\xb8", &escaped), "\\xe4\\xb8");
  EXPECT_EQ(escaped, 2u);
  EXPECT_EQ(io::escapeInvalidUtf8("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(io::escapeInvalidUtf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(io::escapeInvalidUtf8("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
  EXPECT_EQ(io::escapeInvalidUtf8("\xf4\x8f\xbf\xbf"), "\xf4\x8f\xbf\xbf") << "U+10FFFF itself is fine";
  EXPECT_EQ(io::escapeInvalidUtf8("a\\xe9"), "a\\xe9") << "text that reads like an escape stays as it is";
}

TEST(Text, WhitespaceTokensDrawVisibly) {
  // A model's tokens " the", "\n", "\r\n", "\t" and control bytes never draw as blank labels.
  EXPECT_EQ(io::visibleWhitespace(" the"), "\u00b7the");
  EXPECT_EQ(io::visibleWhitespace("\n"), "\u21b5");
  EXPECT_EQ(io::visibleWhitespace("a\r\nb\rc"), "a\u21b5b\u21b5c");
  EXPECT_EQ(io::visibleWhitespace("\t"), "\u2192");
  EXPECT_EQ(io::visibleWhitespace(std::string("\0\x1b\x7f", 3)), "\u2400\u241b\u2421");
  EXPECT_EQ(io::visibleWhitespace("<|endoftext|> \u65e5\u672c"), "<|endoftext|>\u00b7\u65e5\u672c");
  // Token files keep one token per line: only the line breaks become marks there.
  EXPECT_EQ(io::markLineBreaks(" a\nb\t"), " a\u21b5b\t");
}

TEST(SourceRunner, TheProgressLineMentionsCompilingOnlyWhenItHappens) {
  const std::string cold = computingStage("llvmpipe", false, false);
  EXPECT_NE(cold.find("compiling"), std::string::npos) << cold;
  EXPECT_NE(cold.find("vkattn warmup"), std::string::npos) << cold;
  for (const std::string& warm : {computingStage("llvmpipe", true, false), computingStage("llvmpipe", false, true),
                                  computingStage("llvmpipe", true, true)}) {
    EXPECT_EQ(warm.rfind("computing attention on llvmpipe", 0), 0u) << warm;
    EXPECT_EQ(warm.find("warmup"), std::string::npos) << warm;
    EXPECT_EQ(warm.find("compil"), std::string::npos) << warm;
  }
}

TEST(Text, DecodesUtf8AndFindsMissingGlyphs) {
  EXPECT_EQ(decodeUtf8("aé中😀"), (std::vector<uint32_t>{0x61, 0xe9, 0x4e2d, 0x1f600}));
  EXPECT_EQ(decodeUtf8("a\xff\x80z"), (std::vector<uint32_t>{0x61, 0x7a})) << "malformed bytes are skipped";
  EXPECT_EQ(decodeUtf8("\xe4\xb8"), std::vector<uint32_t>{}) << "a truncated sequence is dropped";
  const auto missing = missingGlyphs({"économique", "中文", "Привет", "😀"}, {0x6587});
  // Latin-1 is always baked, U+6587 (文) already is, and 😀 is beyond 16-bit ImWchar.
  EXPECT_EQ(missing, (std::set<uint32_t>{0x4e2d, 0x41f, 0x440, 0x438, 0x432, 0x435, 0x442}));
}

TEST(Text, LabelsAreShortenedOnCodePoints) {
  EXPECT_EQ(shortenLabel("short", 8), "short");
  EXPECT_EQ(shortenLabel("abcdefghij", 4), "abcd..");
  EXPECT_EQ(shortenLabel("中文中文中文", 2), "中文..");
}

TEST(Text, ThinnedLabelsNameWholeWordsAndKeepTheirPlaces) {
  const std::vector<std::string> tokens = {"In",   " the",  " begin", "ning", " God", " cre", "at", "ed",
                                           " the", " heav", "en",     ".",    "\n",   "天",   "地"};
  const std::vector<bool> starts = {true, true, true,  false, true, true, false, false,
                                    true, true, false, true,  true, true, true};
  for (int64_t i = 0; i < static_cast<int64_t>(tokens.size()); ++i)
    EXPECT_EQ(startsWord(tokens, i), starts[static_cast<std::size_t>(i)]) << tokens[static_cast<std::size_t>(i)];
  EXPECT_TRUE(startsWord(tokens, 15)) << "a position past the tokens";

  const auto every = labelSpans(tokens, 2, 6, 1);
  EXPECT_EQ(every, (std::vector<LabelSpan>{{2, 3}, {3, 4}, {4, 5}, {5, 6}}));
  // Every other cell fits a label: word starts at least two apart, " begin"+"ning" named whole.
  const std::vector<LabelSpan> thinned = {{0, 1}, {2, 4}, {4, 5}, {8, 9}, {11, 12}, {13, 14}};
  EXPECT_EQ(labelSpans(tokens, 0, 15, 2), thinned);
  EXPECT_EQ(labelSpans(tokens, 3, 15, 2), (std::vector<LabelSpan>(thinned.begin() + 2, thinned.end())))
      << "scrolled by three cells, the labels keep their places";
  EXPECT_EQ(labelSpans(tokens, 0, 3, 2), (std::vector<LabelSpan>{{0, 1}, {2, 3}})) << "a word is cut at the view";

  // One long word: named whole for 2 * step tokens, then a piece every 2 * step cells.
  EXPECT_EQ(labelSpans({" a", "b", "c", "d", "e", "f", "g", "h", "i"}, 0, 9, 2),
            (std::vector<LabelSpan>{{0, 4}, {4, 5}, {8, 9}}));
  // Words or names, not pieces of a text (no token begins with whitespace): each is a word.
  EXPECT_EQ(labelSpans({"t0", "t1", "t2", "t3", "t4"}, 0, 5, 2), (std::vector<LabelSpan>{{0, 1}, {2, 3}, {4, 5}}));
  // Bare positions (no tokens): every step-th, as before.
  EXPECT_EQ(labelSpans({}, 0, 10, 3), (std::vector<LabelSpan>{{0, 1}, {3, 4}, {6, 7}, {9, 10}}));
  EXPECT_TRUE(labelSpans(tokens, 5, 5, 2).empty());
}

TEST(Text, SplitsWordsAndPunctuation) {
  EXPECT_EQ(splitWords("The agreement was signed in August 1992."),
            (std::vector<std::string>{"The", "agreement", "was", "signed", "in", "August", "1992", "."}));
  EXPECT_EQ(splitWords("  \"Hi,\" she said!  "), (std::vector<std::string>{"\"", "Hi", ",", "\"", "she", "said", "!"}));
  EXPECT_TRUE(splitWords(" \t ").empty());
}

TEST(Region, ClampsIntoTheMap) {
  const Region whole = clampRegion({}, 10, 20);
  EXPECT_DOUBLE_EQ(whole.rowEnd, 10);
  EXPECT_DOUBLE_EQ(whole.colEnd, 20);
  const Region shifted = clampRegion({8, 12, -3, 2}, 10, 20);
  EXPECT_DOUBLE_EQ(shifted.rowBegin, 6);
  EXPECT_DOUBLE_EQ(shifted.rowEnd, 10);
  EXPECT_DOUBLE_EQ(shifted.colBegin, 0);
  EXPECT_DOUBLE_EQ(shifted.colEnd, 5);
  const Region tiny = clampRegion({2, 2.25, 3, 3.1}, 10, 20);
  EXPECT_DOUBLE_EQ(tiny.rowEnd - tiny.rowBegin, 1.0) << "at least one cell each way";
  const Region huge = clampRegion({-5, 50, 0, 1}, 10, 20);
  EXPECT_DOUBLE_EQ(huge.rowBegin, 0);
  EXPECT_DOUBLE_EQ(huge.rowEnd, 10);
}

}  // namespace
}  // namespace vkattn::viewer
