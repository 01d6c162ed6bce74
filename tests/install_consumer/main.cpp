// Uses an installed vkattn's libraries: a half conversion (base), softmax on the device (runtime)
// checked against the double reference (reference), written and read back as .npy (io), the
// tokenizer of the installed translation model (models, installed under the prefix's share/vkattn/models), and a
// byte-level BPE tokenizer over a vocabulary of the 256 bytes (tokenizers, when exported).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>
#include <vkattn/core/half.hpp>
#include <vkattn/io/npy.hpp>
#include <vkattn/models/tokenizer.hpp>
#include <vkattn/reference/error_stats.hpp>
#include <vkattn/reference/reference.hpp>
#include <vkattn/vkattn.hpp>
#ifdef CONSUMER_HAS_TOKENIZERS
#include <string>
#include <vkattn/io/gguf_value.hpp>
#include <vkattn/tokenizers/gguf_tokenizer.hpp>
#endif

int main(int argc, char** argv) {
  vkattn::Context ctx;
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  const std::vector<float> y = vkattn::softmax(ctx, ctx.tensor({1, 3}, logits)).download();
  const auto expected = vkattn::reference::softmaxRef(logits, 3, 1.0, nullptr, {});
  const auto stats = vkattn::reference::compare(y, expected, 1e-6, 1e-6);
  std::printf("softmax: %s\n", vkattn::reference::describe(stats).c_str());
  int bad = stats.failures > 0;
  if (vkattn::halfToFloat(vkattn::floatToHalf(1.5f)) != 1.5f) ++bad, std::printf("1.5 did not survive a half\n");

  const std::filesystem::path npy = std::filesystem::path(argc > 1 ? argv[1] : ".") / "softmax.npy";
  vkattn::io::writeNpy(npy, {1, 3}, y);
  const std::vector<float> back = vkattn::io::npyFloats(vkattn::io::readNpy(npy), "softmax.npy");
  if (back != y) ++bad, std::printf("npy round trip changed the values\n");

  // The installed vocabulary (argv[2] is the prefix's share/vkattn/models).
  if (argc > 2) {
    const auto vocab = vkattn::Vocabulary::load(std::filesystem::path(argv[2]) / "en_fr.src.txt");
    const auto words = vkattn::tokenizeWords("The agreement was signed.");
    std::printf("tokens: %zu, vocabulary: %lld, id of 'agreement': %d\n", words.size(),
                static_cast<long long>(vocab.size()), vocab.id("agreement"));
    if (words.size() != 5 || vocab.id("agreement") == vkattn::Vocabulary::kUnk) ++bad;
  }

#ifdef CONSUMER_HAS_TOKENIZERS
  // Bytes as GPT-2's characters: printable Latin-1 stands for itself, the rest count up from U+0100.
  std::vector<std::string> tokens;
  for (unsigned b = 0, next = 256; b < 256; ++b) {
    const bool self = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    const unsigned cp = self ? b : next++;
    tokens.push_back(cp < 0x80
                         ? std::string(1, static_cast<char>(cp))
                         : std::string{static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))});
  }
  vkattn::GgufMetadata metadata;
  metadata.add("tokenizer.ggml.model", vkattn::GgufValue("gpt2"));
  metadata.add("tokenizer.ggml.pre", vkattn::GgufValue("llama-bpe"));
  metadata.add("tokenizer.ggml.tokens", vkattn::GgufValue::arrayOf(tokens));
  metadata.add("tokenizer.ggml.merges", vkattn::GgufValue::arrayOf(std::vector<std::string>{}));
  const auto tokenizer = vkattn::makeTokenizer(metadata);
  const std::string text = "caf\u00e9 12345!";
  const std::vector<int32_t> ids = tokenizer->encode(text);
  std::printf("tokenizer: %zu ids\n", ids.size());
  if (ids.size() != text.size() || tokenizer->decode(ids) != text) ++bad;
#endif
  return bad;
}
