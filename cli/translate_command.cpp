// `vkattn translate "sentence"`: the tiny English->French model on the chosen device. Prints the
// translation; optionally the tokens and speed, the attention maps as .npy files (one per layer
// and kind, [heads, rows, cols]) with the tokens as text files, and the logits of every step.
#include <fstream>
#include <iostream>
#include <limits>

#include "arguments.hpp"
#include "commands.hpp"
#include "vkattn/io/npy.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/models/translation_model.hpp"

namespace vkattn::cli {
namespace {

void writeTokens(const std::filesystem::path& path, const std::vector<std::string>& tokens) {
  std::ofstream out(path, std::ios::binary);
  for (const std::string& t : tokens) out << t << '\n';
  if (!out) throw Error("cannot write " + path.string());
}

void writeMaps(const std::filesystem::path& dir, const std::string& kind, const std::vector<AttentionMap>& maps) {
  for (std::size_t l = 0; l < maps.size(); ++l) {
    const AttentionMap& m = maps[l];
    io::writeNpy(dir / (kind + "_layer" + std::to_string(l) + ".npy"), {m.heads, m.rows, m.cols}, m.weights);
  }
}

std::string joined(const std::vector<std::string>& tokens) {
  std::string s;
  for (const std::string& t : tokens) {
    if (!s.empty()) s += ' ';
    s += t;
  }
  return s;
}

}  // namespace

int translateCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  Arguments a(args, {"--model", "--max-tokens", "--dump-attention", "--logits"}, {"--verbose"});
  if (a.positional().empty()) throw InvalidArgument("sentence", "give the English sentence to translate");
  std::string english;
  for (const std::string& word : a.positional()) {
    if (!english.empty()) english += ' ';
    english += word;
  }

  Context ctx({.device = options.device});
  if (!ctx.device().pipelineCacheLoaded())
    std::cerr << "vkattn: first run on " << ctx.info().name
              << ": compiling its kernels as they are first used (this can take seconds; `vkattn warmup` "
                 "compiles them ahead of time)\n";
  const std::filesystem::path modelDir = a.get("--model").value_or(defaultModelDirectory().string());
  TranslationModel model(ctx, modelDir);
  const auto dump = a.get("--dump-attention");
  const auto logitsPath = a.get("--logits");
  TranslateOptions o;
  o.maxTokens = a.integer("--max-tokens", 64, 1, std::numeric_limits<int32_t>::max());
  o.attention = dump.has_value();
  o.logits = logitsPath.has_value();
  const Translation t = model.translate(english, o);
  std::cout << t.text << "\n";

  if (a.has("--verbose")) {
    std::cerr << "device:  " << ctx.info().name << "\n"
              << "source:  " << joined(t.sourceTokens) << "\n"
              << "target:  " << joined(t.targetTokens) << "\n"
              << "time:    " << t.seconds * 1e3 << " ms, " << static_cast<double>(t.targetTokens.size()) / t.seconds
              << " tokens/s\n";
  }
  if (dump) {
    const std::filesystem::path dir = *dump;
    std::filesystem::create_directories(dir);
    writeMaps(dir, "encoder_self", t.encoderSelf);
    writeMaps(dir, "decoder_self", t.decoderSelf);
    writeMaps(dir, "cross", t.cross);
    writeTokens(dir / "source_tokens.txt", t.sourceTokens);
    // Row t of the decoder maps is the step that produced target token t.
    writeTokens(dir / "target_tokens.txt", t.targetTokens);
  }
  if (logitsPath) {
    const auto steps = static_cast<int64_t>(t.targetTokens.size());
    io::writeNpy(*logitsPath, {steps, model.targetVocabSize()}, t.logits);
  }
  return 0;
}

}  // namespace vkattn::cli
