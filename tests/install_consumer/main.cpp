// Uses an installed vkattn's four libraries: softmax on the device (runtime) checked against the
// double reference (reference), written and read back as .npy (io), and the tokenizer of the
// installed translation model (models, installed under the prefix's share/vkattn/models).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include <vkattn/io/npy.hpp>
#include <vkattn/models/tokenizer.hpp>
#include <vkattn/reference/error_stats.hpp>
#include <vkattn/reference/reference.hpp>
#include <vkattn/vkattn.hpp>

int main(int argc, char** argv) {
  vkattn::Context ctx;
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  const std::vector<float> y = vkattn::softmax(ctx, ctx.tensor({1, 3}, logits)).download();
  const auto expected = vkattn::reference::softmaxRef(logits, 3, 1.0, nullptr, {});
  const auto stats = vkattn::reference::compare(y, expected, 1e-6, 1e-6);
  std::printf("softmax: %s\n", vkattn::reference::describe(stats).c_str());
  int bad = stats.failures > 0;

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
  return bad;
}
