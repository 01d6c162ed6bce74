// `vkattn generate MODEL.gguf "prompt"`: a LLaMA-family GGUF model on the chosen device. Streams
// the generated text to stdout as it is sampled (the bytes the model produced, whole UTF-8
// characters at a time, as llama.cpp writes them) and reports the prompt's and the generation's
// tokens per second on stderr, and why the generation ended where that is not the token limit or
// the end of sequence (for timing: --ignore-eos passes it, --warmup runs the prompt and a few tokens
// once before); optionally keeps keys and values as bf16, Q8_0 or Q4_0 and writes every
// step's logits as .npy.
#include <algorithm>
#include <iostream>
#include <limits>
#include <optional>

#include "arguments.hpp"
#include "commands.hpp"
#include "sampler_flags.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/io/npy.hpp"
#include "vkattn/models/language_model.hpp"
#include "vkattn/models/token_sampler.hpp"
#include "vkattn/tokenizers/text_tokenizer.hpp"

namespace vkattn::cli {
namespace {

// Bytes of `text` up to its last whole UTF-8 sequence (a token may end inside a character).
std::size_t wholeCharacters(const std::string& text) {
  std::size_t end = text.size();
  for (std::size_t back = 1; back <= 4 && back <= text.size(); ++back) {
    const auto byte = static_cast<unsigned char>(text[text.size() - back]);
    if ((byte & 0xC0) == 0x80) continue;  // a continuation byte
    const std::size_t length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
    if (length > back) end = text.size() - back;
    break;
  }
  return end;
}

std::string tokenCount(std::size_t tokens) {
  return std::to_string(tokens) + (tokens == 1 ? " token" : " tokens");
}

double rate(std::size_t tokens, double seconds) {
  return seconds > 0 ? static_cast<double>(tokens) / seconds : 0.0;
}

}  // namespace

int generateCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  Arguments a(args,
              {"--max-tokens", "--temperature", "--top-k", "--top-p", "--seed", "--context", "--kv-dtype", "--logits"},
              {"--verbose", "--ignore-eos", "--warmup"});
  if (a.positional().size() > 2)
    throw InvalidArgument("PROMPT", std::to_string(a.positional().size() - 1) +
                                        " prompts given; quote the prompt as one argument: vkattn generate "
                                        "MODEL.gguf \"the whole prompt\"");
  if (a.positional().size() != 2)
    throw InvalidArgument("arguments", "give the model file and the prompt: vkattn generate MODEL.gguf \"prompt\"");
  const std::string& path = a.positional()[0];
  const std::string& prompt = a.positional()[1];

  Context ctx({.device = options.device});
  if (!ctx.device().pipelineCacheLoaded())
    std::cerr << "vkattn: first run on " << ctx.info().name
              << ": compiling its kernels as they are first used (`vkattn warmup` compiles them ahead of time)\n";
  LanguageModelOptions modelOptions{.contextLength = a.integer("--context", 0, 0, std::numeric_limits<int32_t>::max())};
  if (const auto name = a.get("--kv-dtype")) {
    const std::optional<DType> format = kvFormatFromString(*name);
    if (!format) throw InvalidArgument("--kv-dtype", "'" + *name + "', expected bf16, q8_0 or q4_0");
    modelOptions.kvFormat = *format;
  }
  std::optional<LanguageModel> loaded;
  try {
    loaded.emplace(ctx, path, modelOptions);
  } catch (const InvalidArgument& e) {
    if (e.argument() == "contextLength") throw InvalidArgument("--context", e.problem());
    throw;
  }
  LanguageModel& model = *loaded;
  if (const std::string warning = model.contextWarning(); !warning.empty())
    std::cerr << "vkattn: warning: " << warning << "\n";

  GenerateOptions o;
  o.maxTokens = a.integer("--max-tokens", 64, 0, std::numeric_limits<int32_t>::max());
  // A fresh seed unless one is given (printed below, so that a sampled run can be repeated).
  o.sampler = samplerFlags(a, freshSeed());
  o.ignoreEos = a.has("--ignore-eos");
  const auto logitsPath = a.get("--logits");
  o.logits = logitsPath.has_value();

  if (a.has("--warmup")) {  // first-use costs (kernels, buffers) out of the reported rates
    GenerateOptions warm = o;
    warm.maxTokens = std::min<int64_t>(o.maxTokens, 4);
    warm.logits = false;
    model.generate(prompt, warm);
  }
  // A prompt past the context is refused before anything is printed (the viewer, which keeps its
  // last tokens instead, says so).
  const std::size_t promptTokens = model.tokenizer().encode(prompt, {.addSpecial = true, .parseSpecial = true}).size();
  if (promptTokens > static_cast<std::size_t>(model.contextLength()))
    throw InvalidArgument("PROMPT", "its " + std::to_string(promptTokens) + " tokens exceed the context of " +
                                        std::to_string(model.contextLength()) + " positions (--context sets it)");
  // Stream: decode everything sampled so far and print what is new and whole.
  std::vector<int32_t> sampled;
  std::size_t printed = 0;
  std::cout << prompt << std::flush;
  o.onStep = [&](const GenerationStep& step) {
    if (step.next < 0) return true;  // --max-tokens 0: the prompt alone
    sampled.push_back(step.next);
    const std::string text = model.tokenizer().decode(sampled, {.continuation = true});
    const std::size_t end = wholeCharacters(text);
    if (end > printed) std::cout << text.substr(printed, end - printed) << std::flush;
    printed = std::max(printed, end);
    return true;
  };
  const Generation g = model.generate(prompt, o);
  const std::string text = g.text;
  if (text.size() > printed) std::cout << text.substr(printed);
  std::cout << "\n";

  const LanguageModelConfig& c = model.config();
  std::cerr << "prompt:     " << tokenCount(g.promptIds.size()) << ", " << rate(g.promptIds.size(), g.promptSeconds)
            << " tokens/s\n"
            << "generation: " << tokenCount(g.ids.size()) << ", "
            << rate(g.ids.size() > 0 ? g.ids.size() - 1 : 0, g.generateSeconds) << " tokens/s"
            << (g.endOfSequence ? " (end of sequence)" : "") << "\n";
  if (o.sampler.temperature > 0)
    std::cerr << "seed:       " << o.sampler.seed << " (--seed " << o.sampler.seed << " repeats this run)\n";
  if (g.end == GenerationEnd::ContextFull)
    std::cerr << "stopped:    the context of " << model.contextLength() << " positions is full (--context sets it"
              << "; the model was trained on " << model.config().contextLength << ")\n";
  if (a.has("--verbose"))
    std::cerr << "device:     " << ctx.info().name << "\n"
              << "model:      " << c.architecture << (c.name.empty() ? "" : " \"" + c.name + "\"") << ", " << c.layers
              << " layers, d " << c.modelDim << ", " << c.heads << " heads (" << c.kvHeads << " for K/V) of "
              << c.headDim << ", vocab " << c.vocab << ", context " << model.contextLength() << ", K/V cache "
              << toString(modelOptions.kvFormat) << "\n";
  if (logitsPath) io::writeNpy(*logitsPath, {static_cast<int64_t>(g.logits.size()) / c.vocab, c.vocab}, g.logits);
  return 0;
}

}  // namespace vkattn::cli
