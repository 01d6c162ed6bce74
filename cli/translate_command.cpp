// `vkattn translate "sentence"`: the tiny English->French model on the chosen device. Prints the
// translation; optionally the tokens and speed, the attention maps as an attention folder (the
// dump layout of vkattn/io/attention_folder.hpp), and the logits of every step.
#include <iostream>
#include <limits>

#include "arguments.hpp"
#include "commands.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/io/attention_folder.hpp"
#include "vkattn/io/npy.hpp"
#include "vkattn/models/translation_model.hpp"

namespace vkattn::cli {
namespace {

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
  Translation t = model.translate(english, o);
  std::cout << t.text << "\n";

  if (a.has("--verbose")) {
    std::cerr << "device:  " << ctx.info().name << "\n"
              << "source:  " << joined(t.sourceTokens) << "\n"
              << "target:  " << joined(t.targetTokens) << "\n"
              << "time:    " << t.seconds * 1e3 << " ms, " << static_cast<double>(t.targetTokens.size()) / t.seconds
              << " tokens/s\n";
  }
  if (dump) {
    io::writeAttentionDump(
        *dump,
        {std::move(t.encoderSelf), std::move(t.decoderSelf), std::move(t.cross), t.sourceTokens, t.targetTokens, {}});
  }
  if (logitsPath) {
    const auto steps = static_cast<int64_t>(t.targetTokens.size());
    io::writeNpy(*logitsPath, {steps, model.targetVocabSize()}, t.logits);
  }
  return 0;
}

}  // namespace vkattn::cli
