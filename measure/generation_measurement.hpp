// Verified generation speed of a LLaMA-family model with random weights at a chosen shape (by
// default a 1B-class one, TinyLlama-1.1B's: 22 layers, width 2048, 32 heads over 4 K/V heads,
// feed-forward 5632, vocabulary 32000), so that tokens per second can be measured at real sizes
// without downloading weights. The model is written as GGUF (random_language_model.hpp) and
// loaded as any model file is; its logits over the first tokens are checked against the
// double-precision reference before anything is timed. Then a prompt is run as one batch and
// tokens are generated greedily one at a time with the key/value cache on the device. Decoding
// reads every matrix once per token, so its rate is also given as weight bytes per second, beside
// a device copy timed in the same process.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "random_language_model.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/models/token_sampler.hpp"

namespace vkattn::measure {

struct GenerationCase {
  RandomModelSpec model{.layers = 22,
                        .modelDim = 2048,
                        .ffnDim = 5632,
                        .heads = 32,
                        .kvHeads = 4,
                        .headDim = 64,
                        .rotaryDim = 64,
                        .matrices = GgmlType::F16,
                        .vocab = 32000,
                        .contextLength = 2048,
                        .neverEndsSequence = true};
  int64_t promptTokens = 128;
  int64_t newTokens = 64;
  int64_t checkedTokens = 4;  // positions whose logits are checked against the reference
  SamplerOptions sampler;     // greedy by default; the token is drawn on the device either way
  // Where the model file is written and left (for a peer to run the same file); empty: a
  // temporary file, removed afterwards.
  std::filesystem::path keepModel;
};

struct GenerationMeasurement {
  std::string shape;          // "22 layers, d 2048, ..., F16"
  std::string sampling;       // "greedy" or "temperature 0.8, top k 40, top p 0.95, seed 1"
  double parameters = 0;      // every weight in the file
  double bytesPerToken = 0;   // matrix bytes a decoded token reads (the embedding row aside)
  double logitError = 0;      // max |vkattn - reference| over the checked positions' logits
  double logitTolerance = 0;  // 1e-3 of the largest |reference logit|
  double promptTokensPerSecond = 0;
  // The weight kernel the timed prompt's products run through ("float" for F32 matrices).
  std::string promptWeightKernel;
  double decodeTokensPerSecond = 0;
  double decodeGBs = 0;  // bytesPerToken x decode tokens per second
  // A decoded token's time split: the host's own (recording, submitting, reading the logits back,
  // sampling) and waiting for the device, in microseconds.
  double hostMicrosecondsPerToken = 0;
  double waitMicrosecondsPerToken = 0;
  // The same decode with every token recorded afresh (GenerateOptions::replay off), same run: what
  // replaying one recording saves.
  double recordedDecodeTokensPerSecond = 0;
  double recordedHostMicrosecondsPerToken = 0;
  double copyGBs = 0;       // a device copy in the same process (bytes read and written)
  double writeSeconds = 0;  // drawing and writing the model file
  bool passed() const noexcept { return logitError <= logitTolerance; }
};

// Writes the model to a temporary file (removed afterwards), checks it, and times it.
GenerationMeasurement measureGeneration(Context& ctx, const GenerationCase& c);

void printGeneration(const GenerationMeasurement& m);

}  // namespace vkattn::measure
