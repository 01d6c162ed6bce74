// `vkattn bench <kernel>`: one kernel at a chosen shape, verified, then timed beside its baseline.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "arguments.hpp"
#include "commands.hpp"
#include "generation_measurement.hpp"
#include "measurements.hpp"
#include "sampler_flags.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/io/ggml_quant.hpp"
#include "vkattn/models/language_model_config.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn::cli {
using namespace vkattn::measure;
namespace {

// A ggml type vkattn can write, by its name in any case ("q4_k", "F16").
GgmlType weightTypeNamed(const std::string& name) {
  std::string upper = name;
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  for (uint32_t id = 0; id < 64; ++id) {
    const auto traits = ggmlTypeTraits(id);
    if (traits && upper == traits->name && ggmlCanQuantize(static_cast<GgmlType>(id))) return static_cast<GgmlType>(id);
  }
  throw InvalidArgument("--weights", "'" + name + "', expected one of " + ggmlStorageFormatTypeNames());
}

// `vkattn bench generate`: a random-weight model of the given shape, checked, then timed.
int benchGenerate(const CommonOptions& options, const std::vector<std::string>& args) {
  Arguments a(args,
              {"--arch", "--layers", "--dim", "--heads", "--kv-heads", "--head-dim", "--ffn", "--vocab", "--weights",
               "--prompt-tokens", "--new-tokens", "--temperature", "--top-k", "--top-p", "--seed", "--model-out"},
              {});
  GenerationCase c;
  RandomModelSpec& s = c.model;
  const auto count = [&](const std::string& flag, int64_t fallback) {
    return a.integer(flag, fallback, 1, std::numeric_limits<int32_t>::max());
  };
  if (auto arch = a.get("--arch")) {
    if (!isLanguageModelArchitecture(*arch)) {
      std::string names;
      for (std::string_view name : kLanguageModelArchitectures) names.append(names.empty() ? "" : ", ").append(name);
      throw InvalidArgument("--arch", "'" + *arch + "', expected one of " + names);
    }
    s.arch = *arch;
  }
  s.layers = count("--layers", s.layers);
  s.modelDim = count("--dim", s.modelDim);
  s.heads = count("--heads", s.heads);
  s.kvHeads = count("--kv-heads", s.kvHeads);
  s.headDim = s.rotaryDim = count("--head-dim", s.modelDim / s.heads);
  s.ffnDim = count("--ffn", s.ffnDim);
  s.vocab = a.integer("--vocab", s.vocab, kRandomModelMinVocab, std::numeric_limits<int32_t>::max());
  if (auto name = a.get("--weights")) s.matrices = weightTypeNamed(*name);
  c.promptTokens = count("--prompt-tokens", c.promptTokens);
  c.newTokens = a.integer("--new-tokens", c.newTokens, 2, std::numeric_limits<int32_t>::max());
  c.checkedTokens = std::min(c.checkedTokens, c.promptTokens);
  c.sampler = samplerFlags(a, 1);  // a fixed seed: every run draws the same tokens
  if (auto out = a.get("--model-out")) c.keepModel = *out;
  s.contextLength = c.promptTokens + c.newTokens;
  Context ctx({.device = options.device});
  std::printf("device:     %s\n", ctx.info().name.c_str());
  std::fflush(stdout);  // before any error on stderr
  GenerationMeasurement m;
  try {
    m = measureGeneration(ctx, c);
  } catch (const InvalidArgument& e) {  // the spec's field names, as this command's flags
    const std::map<std::string, std::string> flags = {
        {"layers", "--layers"},    {"modelDim", "--dim"},     {"ffnDim", "--ffn"},  {"heads", "--heads"},
        {"kvHeads", "--kv-heads"}, {"headDim", "--head-dim"}, {"vocab", "--vocab"}, {"newTokens", "--new-tokens"}};
    const auto flag = flags.find(e.argument());
    if (flag == flags.end()) throw;
    throw InvalidArgument(flag->second, e.problem());
  }
  printGeneration(m);
  return m.passed() ? 0 : 1;
}

}  // namespace

int benchCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "generate") return benchGenerate(options, {args.begin() + 1, args.end()});
  Arguments a(args,
              {"--rows", "--cols", "--m", "--n", "--k", "--batch", "--heads", "--kv-heads", "--len", "--queries",
               "--dim", "--page-size", "--kv-dtype", "--kernel", "--against", "--key-splits", "--json", "--repeats",
               "--baseline-repeats"},
              {"--f16", "--causal"});
  if (a.positional().size() != 1)
    throw InvalidArgument("kernel", "expected one of softmax, layer_norm, rms_norm, rope, attention, linear, generate");
  const std::string kernel = a.positional()[0];
  auto count = [&](const std::string& flag, int64_t fallback) {
    return a.integer(flag, fallback, 1, std::numeric_limits<int32_t>::max());
  };
  const DType dtype = a.has("--f16") ? DType::F16 : DType::F32;
  const auto defaults = kernel == "attention" || kernel == "linear" ? Repeats{} : Repeats{10, 10};
  const Repeats repeats{static_cast<int>(a.integer("--repeats", defaults.kernel, 1, 100000)),
                        static_cast<int>(a.integer("--baseline-repeats", defaults.baseline, 0, 100000))};
  Context ctx({.device = options.device});
  Measurement m;
  if (kernel == "rope") {
    m = measureRope(ctx, count("--batch", 1), count("--heads", 16), count("--len", 1024), count("--dim", 128), dtype,
                    repeats);
  } else if (kernel == "attention") {
    const int64_t len = count("--len", 1024);
    const int64_t pageSize = a.integer("--page-size", 0, 0, std::numeric_limits<int32_t>::max());
    if (pageSize > 0 && len % pageSize != 0)
      throw InvalidArgument("--page-size", std::to_string(pageSize) + " does not divide --len " + std::to_string(len));
    std::optional<DType> kvDtype;
    if (auto name = a.get("--kv-dtype")) {
      kvDtype = kvFormatFromString(*name);
      if (!kvDtype) throw InvalidArgument("--kv-dtype", "'" + *name + "', expected bf16, q8_0 or q4_0");
      if (count("--dim", 64) % 32 != 0 && *kvDtype != DType::BF16)
        throw InvalidArgument("--kv-dtype", *name + " stores blocks of 32: --dim must be a multiple of 32");
    }
    auto variantOf = [&](const std::string& flag) -> std::optional<AttentionVariant> {
      const auto name = a.get(flag);
      if (!name) return std::nullopt;
      const auto named = attentionVariantNamed(*name);
      if (!named) throw InvalidArgument(flag, "'" + *name + "', expected " + std::string(kAttentionVariantNames));
      return named;
    };
    try {
      m = measureAttention(ctx,
                           {.batch = count("--batch", 1),
                            .heads = count("--heads", 8),
                            .queries = count("--queries", len),
                            .len = len,
                            .dim = count("--dim", 64),
                            .kvHeads = count("--kv-heads", count("--heads", 8)),
                            .causal = a.has("--causal"),
                            .dtype = dtype,
                            .variant = variantOf("--kernel").value_or(AttentionVariant::Auto),
                            .pageSize = pageSize,
                            .kvDtype = kvDtype,
                            .against = variantOf("--against"),
                            .keySplits = static_cast<uint32_t>(a.integer("--key-splits", 0, 0, 4096))},
                           repeats);
    } catch (const InvalidArgument& e) {  // the option's name, as this command spells it
      if (e.argument() != "keySplits") throw;
      throw InvalidArgument("--key-splits", e.problem());
    }
  } else if (kernel == "linear") {
    m = measureLinear(ctx, count("--m", 512), count("--n", 512), count("--k", 512), dtype, MatmulVariant::Auto,
                      repeats);
  } else {
    m = measureRowOp(ctx, kernel, count("--rows", 4096), count("--cols", 1024), dtype, repeats);
  }
  if (!m.skipped.empty()) throw Unsupported(m.skipped);  // a variant this device lacks: the error, as before
  std::printf("device: %s\n", ctx.info().name.c_str());
  printHeader();
  printMeasurement(m);
  if (auto path = a.get("--json")) {
    std::ofstream out(*path);
    if (!out) throw InvalidArgument("--json", "cannot write " + *path);
    nlohmann::ordered_json report = {{"device", ctx.info().name},
                                     {"kernel", m.kernel},
                                     {"variant", m.variant},
                                     {"shape", m.shape},
                                     {"checked", m.checked},
                                     {"max_abs_error", m.error.maxAbs},
                                     {"tolerance", m.tolerance},
                                     {"passed", m.passed()},
                                     {"median_ms", m.medianMs},
                                     {"unit", m.unit},
                                     {"rate", m.rate},
                                     {"baseline", m.baseline}};
    const bool ran = m.baselineSkipped.empty();
    report["baseline_rate"] = ran ? nlohmann::ordered_json(m.baselineRate) : nlohmann::ordered_json();
    report["ratio"] = ran ? nlohmann::ordered_json(m.rate / m.baselineRate) : nlohmann::ordered_json();
    if (!ran) report["baseline_skipped"] = m.baselineSkipped;
    out << report.dump() << "\n";
  }
  return m.passed() ? 0 : 1;
}

}  // namespace vkattn::cli
