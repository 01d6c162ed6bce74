// `vkattn demo`: each kernel on a sample, checked against the double-precision reference and
// timed against its baseline, on the chosen device.
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "measurements.hpp"
#include "vkattn/models/translation_model.hpp"

namespace vkattn::cli {
using namespace vkattn::measure;

namespace {

// The documents' alignment example through the project's English->French model, when it is there.
void translateSample(Context& ctx) {
  const std::filesystem::path dir = defaultModelDirectory();
  if (!std::filesystem::exists(dir / "en_fr.safetensors")) {
    std::cout << "\ntranslation model not found in " << dir << " (set VKATTN_MODEL_DIR)\n";
    return;
  }
  TranslationModel model(ctx, dir);
  const std::string english = "The agreement on the European Economic Area was signed in August 1992.";
  model.translate(english);  // the first call creates the pipelines
  const Translation t = model.translate(english);
  std::cout << "\ntranslate: " << english << "\n       ->  " << t.text << "\n           (" << t.targetTokens.size()
            << " tokens in " << t.seconds * 1e3 << " ms, " << static_cast<double>(t.targetTokens.size()) / t.seconds
            << " tokens/s)\n";
}

}  // namespace

int demoCommand(const CommonOptions& options) {
  Context ctx({.device = options.device});
  std::cout << "device: " << ctx.info().name << " (" << toString(ctx.info().kind) << "), kernel profile "
            << toString(ctx.profile()) << "\n\n";
  std::vector<Measurement> rows;
  printHeader();
  auto add = [&](Measurement m) {
    printMeasurement(m);
    rows.push_back(std::move(m));
  };
  for (DType dtype : {DType::F32, DType::F16}) {
    for (const char* kernel : {"softmax", "layer_norm", "rms_norm"}) add(measureRowOp(ctx, kernel, 2048, 1024, dtype));
    add(measureRope(ctx, 1, 16, 512, 128, dtype));
  }
  add(measureAttention(ctx, {.heads = 8, .queries = 512, .len = 512, .dim = 64, .causal = true}));
  add(measureAttention(ctx, {.heads = 8, .queries = 1, .len = 4096, .dim = 64, .causal = true}));
  add(measureLinear(ctx, 512, 512, 512, DType::F32));
  add(measureLinear(ctx, 32, 384, 128, DType::F32));
  int failures = 0;
  for (const auto& r : rows) failures += r.passed() ? 0 : 1;
  std::cout << "\n" << rows.size() - failures << " passed, " << failures << " failed\n";
  translateSample(ctx);
  return failures ? 1 : 0;
}

}  // namespace vkattn::cli
