// Loads a model's weights from a safetensors file onto the device, checking every tensor's shape
// against the architecture read from the file's metadata. Errors name the file and the tensor.
#pragma once

#include <filesystem>
#include <string>

#include "vkattn/core/context.hpp"
#include "vkattn/io/safetensors.hpp"
#include "vkattn/models/attention_layer.hpp"

namespace vkattn::detail {

struct LinearWeights {
  Tensor weight;  // [out, in]
  Tensor bias;    // [out]
};

struct NormWeights {
  Tensor weight;
  Tensor bias;
};

// The "vkattn-translation-v1" metadata.
struct TranslationConfig {
  int64_t modelDim = 0, heads = 0, encoderLayers = 0, decoderLayers = 0;
  int64_t encoderKvHeads = 0, decoderKvHeads = 0, crossKvHeads = 0, ffnDim = 0, maxLength = 0;
  float normEps = 1e-5f;
};

class ModelWeights {
 public:
  ModelWeights(Context& ctx, const std::filesystem::path& file);

  TranslationConfig translationConfig() const;
  Tensor tensor(const std::string& name, const Shape& shape) const;
  LinearWeights linear(const std::string& prefix, int64_t out, int64_t in) const;
  NormWeights norm(const std::string& prefix, int64_t dim) const;
  MultiHeadAttention attention(const std::string& prefix, const AttentionLayerConfig& config) const;

 private:
  int64_t metadataInt(const std::string& key, int64_t min, int64_t max) const;
  std::string metadataString(const std::string& key) const;

  Context& m_ctx;
  std::filesystem::path m_path;
  SafetensorsFile m_file;
};

}  // namespace vkattn::detail
