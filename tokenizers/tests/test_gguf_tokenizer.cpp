// Tokenizers from GGUF metadata on hand-worked vocabularies: "llama" (SentencePiece BPE, scores,
// byte fallback) and "gpt2" (byte-level BPE, merge ranks, special tokens), the pre-tokenizers'
// splits, round trips over every kind of text, and the errors for bad metadata. The expected ids
// are worked out by hand in the comments; tokenizer_crosscheck.py checks the same code
// against HuggingFace tokenizers and sentencepiece.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "vkattn/core/error.hpp"
#include "vkattn/io/gguf.hpp"
#include "vkattn/io/gguf_vocabulary.hpp"
#include "vkattn/io/gguf_writer.hpp"
#include "vkattn/tokenizers/gguf_tokenizer.hpp"
#include "vkattn/tokenizers/pretokenizer.hpp"

namespace vkattn {
namespace {

using Ids = std::vector<int32_t>;

const std::vector<std::string> kRoundTripTexts = {
    "",
    " ",
    "hello world",
    "Hello, World! It's 2024; numbers 1234567 and 3.14.",
    "  multiple   spaces  and trailing   ",
    "caf\u00e9 na\u00efve \u00c5ngstr\u00f6m se\u00f1or",
    "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8 \u4e2d\u6587 \ud55c\uad6d\uc5b4",
    "emoji \U0001F600\U0001F389 flags \U0001F1EB\U0001F1F7 family \U0001F468\u200D\U0001F469\u200D\U0001F467",
    "line1\nline2\r\n\ttabbed\n\n\nend\n",
    "<s> not special </s> <|endoftext|>",
};

// ---- "llama": SentencePiece BPE ------------------------------------------------------------------

// <unk> <s> </s>, the 256 byte tokens (id 3 + byte), then normal tokens with scores chosen so that
// "hello world" merges in an order a left-to-right reading would not find.
GgufMetadata llamaMetadata(bool addSpacePrefix = true) {
  const std::vector<std::pair<std::string, float>> normal = {
      {"\u2581", -10}, {"h", -10},          {"e", -10},        {"l", -10},
      {"o", -10},      {"w", -10},          {"r", -10},        {"d", -10},  // 259..266
      {"ll", -1},      {"\u2581h", -2},     {"he", -3},        {"\u2581he", -4},
      {"llo", -5},     {"\u2581hello", -6},                                  // 267..272
      {"\u2581w", -7}, {"or", -2.5f},       {"\u2581wor", -8}, {"ld", -9}};  // 273..276
  GgufMetadata metadata;
  for (auto& [key, value] : byteFallbackVocabulary(normal)) metadata.add(key, std::move(value));
  metadata.add("tokenizer.ggml.add_space_prefix", GgufValue(addSpacePrefix));
  return metadata;
}

constexpr int32_t kByte = kFirstByteToken;

TEST(SentencePieceBpe, MergesByScoreNotPosition) {
  const auto tokenizer = makeTokenizer(llamaMetadata());
  // "▁hello▁world": ll (-1), ▁h (-2), or (-2.5), [he is stale], ▁he (-4), llo (-5), ▁hello (-6),
  // ▁w (-7), ▁wor (-8), ld (-9); "▁world" is no token, so ▁wor + ld stay apart.
  EXPECT_EQ(tokenizer->encode("hello world"), (Ids{1, 272, 275, 276}));
  EXPECT_EQ(tokenizer->encode("hello world", {.addSpecial = false}), (Ids{272, 275, 276}));
  EXPECT_EQ(tokenizer->decode(Ids{1, 272, 275, 276}), "hello world");
}

TEST(SentencePieceBpe, EqualScoresMergeLeftmostFirst) {
  const auto tokenizer = makeTokenizer(llamaMetadata());
  // "▁lll": both l-l pairs score -1; the left one merges, then "lll" is no token.
  EXPECT_EQ(tokenizer->encode("lll", {.addSpecial = false}), (Ids{259, 267, 262}));
}

TEST(SentencePieceBpe, BytesFallBackForCharactersNotInTheVocabulary) {
  const auto tokenizer = makeTokenizer(llamaMetadata());
  // "▁hé": ▁h merges; é (C3 A9) is no token and goes as its two bytes.
  EXPECT_EQ(tokenizer->encode("h\u00e9", {.addSpecial = false}), (Ids{268, kByte + 0xC3, kByte + 0xA9}));
  // Newlines are not spaces: "▁a\nb" with a, \n, b as bytes.
  EXPECT_EQ(tokenizer->encode("a\nb", {.addSpecial = false}), (Ids{259, kByte + 'a', kByte + '\n', kByte + 'b'}));
}

TEST(SentencePieceBpe, SpacePrefixIsAddedAndTakenOffAgain) {
  const auto tokenizer = makeTokenizer(llamaMetadata());
  // " hello" -> "▁▁hello": the first ▁ pairs with nothing.
  EXPECT_EQ(tokenizer->encode(" hello", {.addSpecial = false}), (Ids{259, 272}));
  EXPECT_EQ(tokenizer->decode(Ids{259, 272}), " hello");
  EXPECT_EQ(tokenizer->decode(Ids{272}), "hello");
  // A generation after its prompt keeps the space between them.
  EXPECT_EQ(tokenizer->decode(Ids{272}, {.continuation = true}), " hello");

  const auto bare = makeTokenizer(llamaMetadata(false));
  // "hello" without the prefix: ll (-1), he (-3), llo (-5); "hello" is no token.
  EXPECT_EQ(bare->encode("hello", {.addSpecial = false}), (Ids{269, 271}));
  EXPECT_EQ(bare->decode(Ids{272}), " hello");
}

TEST(SentencePieceBpe, ControlTokensOnlyWhenAskedFor) {
  const auto tokenizer = makeTokenizer(llamaMetadata());
  // Parsed: <s> becomes id 1 and the text after it gets the space prefix again ("▁h" "e"... ).
  EXPECT_EQ(tokenizer->encode("<s>he", {.addSpecial = false, .parseSpecial = true}), (Ids{1, 270}));
  const Ids plain = tokenizer->encode("<s>", {.addSpecial = false});
  EXPECT_EQ(plain.size(), 4u);  // ▁ and the bytes of "<s>"
  EXPECT_EQ(tokenizer->decode(Ids{1, 272, 2}), "hello");
  EXPECT_EQ(tokenizer->decode(Ids{1, 272, 2}, {.renderSpecial = true}), "<s> hello</s>");
  EXPECT_EQ(tokenizer->decode(Ids{0}), "\u2585");
}

TEST(SentencePieceBpe, RoundTrips) {
  const auto tokenizer = makeTokenizer(llamaMetadata());
  for (const std::string& text : kRoundTripTexts) EXPECT_EQ(tokenizer->decode(tokenizer->encode(text)), text) << text;
}

TEST(SentencePieceBpe, ReadsAFileWrittenByGgufWriter) {
  GgufWriter writer;
  const GgufMetadata metadata = llamaMetadata();
  for (const auto& [key, value] : metadata.entries()) writer.setMetadata(key, value);
  const GgufFile file = GgufFile::fromBytes(writer.bytes());
  EXPECT_EQ(makeTokenizer(file.metadata())->encode("hello world"), (Ids{1, 272, 275, 276}));
}

// ---- "gpt2": byte-level BPE ----------------------------------------------------------------------

// Ids 0..255 are the bytes (as GPT-2's characters), then the merge results, then special tokens.
GgufMetadata gpt2Metadata(const std::string& pre = "gpt2") {
  std::vector<std::string> tokens;
  uint32_t next = 256;
  for (uint32_t b = 0; b < 256; ++b) {
    // GPT-2's table: printable Latin-1 stands for itself, the rest count up from U+0100.
    const bool self = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    const uint32_t cp = self ? b : next++;
    std::string text;
    if (cp < 0x80) {
      text += static_cast<char>(cp);
    } else {
      text += static_cast<char>(0xC0 | (cp >> 6));
      text += static_cast<char>(0x80 | (cp & 0x3F));
    }
    tokens.push_back(text);
  }
  const std::vector<std::string> merges = {"l l", "h e", "\u0120 w", "he ll", "o r", "\u0120w or", "hell o"};
  for (const std::string& m : merges)
    tokens.push_back(m.substr(0, m.find(' ')) + m.substr(m.find(' ') + 1));  // 256..262
  tokens.push_back("<|endoftext|>");                                         // 263, control
  tokens.push_back("<tool>");                                                // 264, user-defined
  std::vector<int32_t> types(tokens.size(), 1);
  types[263] = 3;
  types[264] = 4;
  GgufMetadata metadata;
  metadata.add("tokenizer.ggml.model", GgufValue("gpt2"));
  metadata.add("tokenizer.ggml.pre", GgufValue(pre.c_str()));
  metadata.add("tokenizer.ggml.tokens", GgufValue::arrayOf(tokens));
  metadata.add("tokenizer.ggml.token_type", GgufValue::arrayOf(types));
  metadata.add("tokenizer.ggml.merges", GgufValue::arrayOf(merges));
  metadata.add("tokenizer.ggml.bos_token_id", GgufValue(uint32_t{263}));
  metadata.add("tokenizer.ggml.eos_token_id", GgufValue(uint32_t{263}));
  return metadata;
}

TEST(ByteLevelBpe, MergesByRank) {
  const auto tokenizer = makeTokenizer(gpt2Metadata());
  // "hello": l l (0), h e (1), he ll (3), hell o (6) -> 262. " world" = "Ġworld": Ġ w (2), o r (4),
  // Ġw or (5); l and d have no merge -> 261 'l' 'd'. No bos: add_bos_token is absent for gpt2.
  EXPECT_EQ(tokenizer->encode("hello world"), (Ids{262, 261, 'l', 'd'}));
  EXPECT_EQ(tokenizer->decode(Ids{262, 261, 'l', 'd'}), "hello world");
}

TEST(ByteLevelBpe, MergesStayInsideAPreTokenizerPiece) {
  const auto tokenizer = makeTokenizer(gpt2Metadata());
  // "he llo" is two pieces, "he" and " llo" ("Ġllo"): Ġ stays apart from ll, which merges.
  EXPECT_EQ(tokenizer->encode("he llo"), (Ids{257, ' ', 256, 'o'}));
}

TEST(ByteLevelBpe, SpecialTokensAreSplitOutFirst) {
  const auto tokenizer = makeTokenizer(gpt2Metadata());
  // A user-defined token always; "there" = t, h e (1), r, e.
  EXPECT_EQ(tokenizer->encode("hi<tool>there"), (Ids{'h', 'i', 264, 't', 257, 'r', 'e'}));
  // A control token only when parseSpecial; otherwise its text goes byte by byte.
  EXPECT_EQ(tokenizer->encode("a<|endoftext|>b", {.parseSpecial = true}), (Ids{'a', 263, 'b'}));
  Ids bytes;
  for (const char c : std::string("a<|endoftext|>b")) bytes.push_back(static_cast<unsigned char>(c));
  EXPECT_EQ(tokenizer->encode("a<|endoftext|>b"), bytes);
  EXPECT_EQ(tokenizer->decode(Ids{'a', 263, 'b'}), "ab");
  EXPECT_EQ(tokenizer->decode(Ids{'a', 263, 'b'}, {.renderSpecial = true}), "a<|endoftext|>b");
  EXPECT_EQ(tokenizer->decode(Ids{264}), "<tool>");
}

TEST(ByteLevelBpe, BytesMapThroughGpt2sTable) {
  const auto tokenizer = makeTokenizer(gpt2Metadata());
  // Byte 0x20 is U+0120 'Ġ', byte 0x0A U+010A 'Ċ', byte 0xAD U+0143: each stands for its byte id.
  EXPECT_EQ(tokenizer->vocabulary().tokens[0x20], "\u0120");
  EXPECT_EQ(tokenizer->vocabulary().tokens[0x0A], "\u010A");
  EXPECT_EQ(tokenizer->vocabulary().tokens[0xAD], "\u0143");
  EXPECT_EQ(tokenizer->encode("\xC3\xA9"), (Ids{0xC3, 0xA9}));
  // Not UTF-8 at all: the bytes still go through and come back.
  EXPECT_EQ(tokenizer->encode("\xFF\xFE"), (Ids{0xFF, 0xFE}));
  EXPECT_EQ(tokenizer->decode(Ids{0xFF, 0xFE}), "\xFF\xFE");
}

TEST(ByteLevelBpe, RoundTripsWithEveryPreTokenizer) {
  for (const char* pre : {"default", "gpt-2", "gpt2", "llama-bpe", "qwen2", "smollm"}) {
    const auto tokenizer = makeTokenizer(gpt2Metadata(pre));
    for (const std::string& text : kRoundTripTexts)
      EXPECT_EQ(tokenizer->decode(tokenizer->encode(text)), text) << pre << ": " << text;
    EXPECT_EQ(tokenizer->decode(tokenizer->encode("\xFF ok \xC3")), "\xFF ok \xC3") << pre;
  }
}

TEST(ByteLevelBpe, LlamaBpeTakesAPieceThatIsATokenWhole) {
  GgufMetadata metadata = gpt2Metadata("llama-bpe");
  // "hello" is a token and also reached by merges; "ell" would only be one whole: add it as a
  // token without a merge, and "ell" (one piece) comes out whole under llama-bpe alone.
  std::vector<std::string> tokens = metadata.getArrayOf<std::string>("tokenizer.ggml.tokens");
  std::vector<int32_t> types = metadata.getArrayOf<int32_t>("tokenizer.ggml.token_type");
  tokens.push_back("ell");  // 265
  types.push_back(1);
  GgufMetadata edited;
  for (const auto& [key, value] : metadata.entries()) {
    if (key == "tokenizer.ggml.tokens")
      edited.add(key, GgufValue::arrayOf(tokens));
    else if (key == "tokenizer.ggml.token_type")
      edited.add(key, GgufValue::arrayOf(types));
    else
      edited.add(key, value);
  }
  EXPECT_EQ(makeTokenizer(edited)->encode("ell"), (Ids{265}));
  GgufMetadata asGpt2;
  for (const auto& [key, value] : edited.entries())
    asGpt2.add(key, key == "tokenizer.ggml.pre" ? GgufValue("gpt2") : value);
  EXPECT_EQ(makeTokenizer(asGpt2)->encode("ell"), (Ids{'e', 256}));
}

// ---- pre-tokenizers --------------------------------------------------------------------------------

using Pieces = std::vector<std::string>;

Pieces split(const char* pre, const std::string& text) {
  Pieces pieces;
  for (const std::string_view piece : PreTokenizer(pre).split(text)) pieces.emplace_back(piece);
  return pieces;
}

TEST(PreTokenizer, Gpt2) {
  // "  x": \s+(?!\S) gives back the space before x, which " ?\p{L}+" takes.
  EXPECT_EQ(split("gpt-2", "Hello world's 123  x\n"), (Pieces{"Hello", " world", "'s", " 123", " ", " x", "\n"}));
  EXPECT_EQ(split("gpt2", "Hello world's 123  x\n"), split("gpt-2", "Hello world's 123  x\n"));
}

TEST(PreTokenizer, LlamaBpe) {
  // A space before a digit is whitespace alone; digits go in threes; punctuation takes the
  // newlines after it; letters take one non-letter in front.
  EXPECT_EQ(split("llama-bpe", "I'm 12345 ok!!\n\nyes"), (Pieces{"I", "'m", " ", "123", "45", " ok", "!!\n\n", "yes"}));
  EXPECT_EQ(split("llama-bpe", "caf\u00e9 \u65e5\u672c \U0001F600"),
            (Pieces{"caf\u00e9", " \u65e5\u672c", " \U0001F600"}));
}

TEST(PreTokenizer, Qwen2) {
  EXPECT_EQ(split("qwen2", "I'm 12345 ok!!\n\nyes"),
            (Pieces{"I", "'m", " ", "1", "2", "3", "4", "5", " ok", "!!\n\n", "yes"}));
}

TEST(PreTokenizer, Smollm) {
  // Digits split off first; then GPT-2's expression, where the second newline before a letter
  // matches nothing and stays a piece of its own.
  EXPECT_EQ(split("smollm", "I'm 12345 ok!!\n\nyes"),
            (Pieces{"I", "'m", " ", "1", "2", "3", "4", "5", " ok", "!!", "\n", "\n", "yes"}));
}

TEST(PreTokenizer, DefaultRunsLlamaCppsFallbackList) {
  // Punctuation runs, then GPT-2's expression, then digit runs, then three-digit groups.
  EXPECT_EQ(split("default", "a+b, 1234"), (Pieces{"a", "+", "b", ",", " ", "123", "4"}));
}

// ---- errors ----------------------------------------------------------------------------------------

// The InvalidArgument `make` throws; fails the test when it throws none.
template <class F>
InvalidArgument invalidArgumentOf(F make) {
  try {
    make();
  } catch (const InvalidArgument& e) {
    return e;
  }
  ADD_FAILURE() << "no InvalidArgument";
  return InvalidArgument("", "");
}

GgufMetadata without(const GgufMetadata& metadata, std::string_view dropped) {
  GgufMetadata out;
  for (const auto& [key, value] : metadata.entries())
    if (key != dropped) out.add(key, value);
  return out;
}

GgufMetadata replaced(const GgufMetadata& metadata, std::string_view key, GgufValue value) {
  GgufMetadata out = without(metadata, key);
  out.add(std::string(key), std::move(value));
  return out;
}

TEST(GgufTokenizerErrors, NameTheUnknownModelOrPreTokenizer) {
  const InvalidArgument model =
      invalidArgumentOf([] { makeTokenizer(replaced(gpt2Metadata(), "tokenizer.ggml.model", GgufValue("bert"))); });
  EXPECT_EQ(model.argument(), "tokenizer.ggml.model");
  EXPECT_NE(model.problem().find("\"bert\""), std::string::npos) << model.what();
  const InvalidArgument pre = invalidArgumentOf([] { makeTokenizer(gpt2Metadata("deepseek-llm")); });
  EXPECT_EQ(pre.argument(), "tokenizer.ggml.pre");
  EXPECT_NE(pre.problem().find("\"deepseek-llm\""), std::string::npos) << pre.what();
}

TEST(GgufTokenizerErrors, NameTheMissingKey) {
  for (const char* key : {"tokenizer.ggml.model", "tokenizer.ggml.tokens", "tokenizer.ggml.scores"})
    EXPECT_EQ(invalidArgumentOf([&] { makeTokenizer(without(llamaMetadata(), key)); }).argument(), key);
  EXPECT_EQ(invalidArgumentOf([] { makeTokenizer(without(gpt2Metadata(), "tokenizer.ggml.merges")); }).argument(),
            "tokenizer.ggml.merges");
  // A missing pre-tokenizer is llama.cpp's "default", as it is for older files.
  EXPECT_EQ(makeTokenizer(without(gpt2Metadata(), "tokenizer.ggml.pre"))->vocabulary().pre, "default");
}

TEST(GgufTokenizerErrors, NameTheMalformedKey) {
  const GgufMetadata llama = llamaMetadata();
  EXPECT_EQ(invalidArgumentOf([&] {
              makeTokenizer(replaced(llama, "tokenizer.ggml.scores", GgufValue::arrayOf(std::vector<float>{0, 1})));
            }).argument(),
            "tokenizer.ggml.scores");
  std::vector<int32_t> types = llama.getArrayOf<int32_t>("tokenizer.ggml.token_type");
  types[5] = 9;
  EXPECT_EQ(invalidArgumentOf([&] {
              makeTokenizer(replaced(llama, "tokenizer.ggml.token_type", GgufValue::arrayOf(types)));
            }).argument(),
            "tokenizer.ggml.token_type");
  EXPECT_EQ(invalidArgumentOf([&] {
              makeTokenizer(replaced(llama, "tokenizer.ggml.bos_token_id", GgufValue(uint32_t{100000})));
            }).argument(),
            "tokenizer.ggml.bos_token_id");
  EXPECT_EQ(invalidArgumentOf([] {
              makeTokenizer(replaced(gpt2Metadata(), "tokenizer.ggml.merges",
                                     GgufValue::arrayOf(std::vector<std::string>{"nospace"})));
            }).argument(),
            "tokenizer.ggml.merges");
  EXPECT_EQ(invalidArgumentOf([] { makeTokenizer(llamaMetadata())->decode(Ids{5000}); }).argument(), "ids");
}

}  // namespace
}  // namespace vkattn
