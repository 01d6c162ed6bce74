// `vkattn perplexity MODEL.gguf TEXTFILE [--context N]`: a GGUF model's perplexity on a text,
// chunked and scored as llama.cpp's llama-perplexity does it (LanguageModel::perplexity), so that
// the two figures compare.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "arguments.hpp"
#include "commands.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/models/language_model.hpp"

namespace vkattn::cli {

int perplexityCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  Arguments a(args, {"--context"}, {});
  if (a.positional().size() != 2)
    throw InvalidArgument("arguments", "give the model file and a text file: vkattn perplexity MODEL.gguf TEXT.txt");
  const std::string& textPath = a.positional()[1];
  std::ifstream in(textPath, std::ios::binary);
  if (!in) throw InvalidArgument(textPath, "cannot read the file");
  std::stringstream text;
  text << in.rdbuf();
  Context ctx({.device = options.device});
  LanguageModel model(ctx, a.positional()[0]);
  Perplexity p;
  try {
    p = model.perplexity(text.str(), a.integer("--context", 0, 0, std::numeric_limits<int32_t>::max()));
  } catch (const InvalidArgument& e) {
    if (e.argument() == "context") throw InvalidArgument("--context", e.problem());
    if (e.argument() == "text")  // too short for two chunks: a shorter context still scores it
      throw InvalidArgument(textPath, e.problem() + " (a smaller --context scores a shorter text)");
    throw;
  }
  std::printf("perplexity: %.4f (mean negative log-likelihood %.5f nats) over %lld tokens, %lld chunks of %lld\n",
              p.perplexity, p.meanNll, static_cast<long long>(p.scored), static_cast<long long>(p.chunks),
              static_cast<long long>(p.context));
  std::fprintf(stderr, "%.1f tokens/s on %s\n",
               p.seconds > 0 ? static_cast<double>(p.chunks * p.context) / p.seconds : 0.0, ctx.info().name.c_str());
  return 0;
}

}  // namespace vkattn::cli
