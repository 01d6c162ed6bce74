// The --source factory: the one place that knows every kind of source.
#include <filesystem>
#include <string>

#include "sources/attention_source.hpp"
#include "sources/demo_source.hpp"
#ifdef VKATTN_LANGUAGE_MODELS
#include "sources/language_model_source.hpp"
#endif
#include "sources/npy_source.hpp"
#include "sources/translation_source.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::viewer {

std::string defaultSourceSpec() {
  std::error_code ec;
  if (std::filesystem::exists(defaultModelDirectory() / "en_fr.safetensors", ec)) return "model";
  return "demo";
}

std::unique_ptr<AttentionSource> makeSource(Context& ctx, const SourceOptions& options) {
  const std::string& spec = options.spec;
  if (spec == "demo") return std::make_unique<DemoSource>(ctx);
  if (spec.rfind("demo:", 0) == 0) {
    const std::string n = spec.substr(5);
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 6 || std::stol(n) < 2 ||
        std::stol(n) > 8192)
      throw InvalidArgument("--source", "demo:N takes a token count from 2 to 8192, got '" + n + "'");
    return std::make_unique<DemoSource>(ctx, std::stol(n));
  }
  if (spec.rfind("npy:", 0) == 0) {
    if (spec.size() == 4) throw InvalidArgument("--source", "npy: needs a path, e.g. npy:attention.npy");
    return std::make_unique<NpySource>(ctx, spec.substr(4), options);
  }
  if (spec == "model" || spec.rfind("model:", 0) == 0) {
    const std::filesystem::path dir = spec == "model" ? defaultModelDirectory() : std::filesystem::path(spec.substr(6));
    return std::make_unique<TranslationSource>(ctx, dir);
  }
  if (spec.rfind("gguf:", 0) == 0) {
    if (spec.size() == 5) throw InvalidArgument("--source", "gguf: needs a model file, e.g. gguf:model.gguf");
#ifdef VKATTN_LANGUAGE_MODELS
    return std::make_unique<LanguageModelSource>(ctx, spec.substr(5), options.maxTokens);
#else
    throw InvalidArgument("--source", "gguf: this viewer was built without the GGUF tokenizers (PCRE2)");
#endif
  }
  throw InvalidArgument("--source",
                        "unknown source '" + spec + "'; expected demo, demo:N, model[:DIR], npy:PATH or gguf:PATH");
}

}  // namespace vkattn::viewer
