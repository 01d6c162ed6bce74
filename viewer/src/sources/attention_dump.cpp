#include "sources/attention_dump.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "sources/token_file.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/tensor.hpp"
#include "vkattn/io/npy.hpp"

namespace vkattn::viewer {
namespace {

namespace fs = std::filesystem;

fs::path layerFile(const fs::path& dir, const std::string& prefix, std::size_t layer) {
  return dir / (prefix + "_layer" + std::to_string(layer) + ".npy");
}

// The tokens of `file`, else positions; a file that is not UTF-8 says so in `warning`.
std::vector<std::string> tokensOr(const fs::path& file, int64_t n, std::string& warning) {
  if (fs::exists(file)) {
    TokenFile read = readTokenFile(file, "--source");
    if (static_cast<int64_t>(read.tokens.size()) != n)
      throw InvalidArgument("--source", file.string() + " has " + std::to_string(read.tokens.size()) +
                                            " tokens; the maps have " + std::to_string(n));
    if (!read.note.empty()) warning += (warning.empty() ? "" : "; ") + read.note;
    return std::move(read.tokens);
  }
  std::vector<std::string> positions;
  for (int64_t i = 0; i < n; ++i) positions.push_back(std::to_string(i));
  return positions;
}

// Layers 0.. of one kind, each [heads, rows, cols] of one shape.
std::vector<AttentionMap> readLayers(const fs::path& dir, const std::string& prefix) {
  std::vector<AttentionMap> layers;
  for (std::size_t layer = 0; fs::exists(layerFile(dir, prefix, layer)); ++layer) {
    const fs::path file = layerFile(dir, prefix, layer);
    const std::string name = file.string();
    const io::NpyArray array = io::readNpy(file);
    if (array.shape.size() != 3)
      throw InvalidArgument(name, "has shape " + toString(array.shape) + "; expected [heads, rows, cols]");
    AttentionMap map{array.shape[0], array.shape[1], array.shape[2], io::npyFloats(array, name)};
    for (float v : map.weights)
      if (!std::isfinite(v)) throw InvalidArgument(name, "contains NaN or infinity");
    if (!layers.empty() && (map.heads != layers[0].heads || map.rows != layers[0].rows || map.cols != layers[0].cols))
      throw InvalidArgument(name, "has shape " + toString(array.shape) + ", unlike layer 0's [" +
                                      std::to_string(layers[0].heads) + ", " + std::to_string(layers[0].rows) + ", " +
                                      std::to_string(layers[0].cols) + "]");
    layers.push_back(std::move(map));
  }
  return layers;
}

}  // namespace

bool isAttentionDump(const fs::path& dir) {
  for (const char* prefix : {"cross", "encoder_self", "decoder_self"})
    if (fs::exists(layerFile(dir, prefix, 0))) return true;
  return false;
}

AttentionSet loadAttentionDump(const fs::path& dir) {
  AttentionSet set;
  auto cross = readLayers(dir, "cross");
  auto encoder = readLayers(dir, "encoder_self");
  auto decoder = readLayers(dir, "decoder_self");
  // Token counts come from whichever maps exist: source = encoder's or cross's columns, target =
  // the decoder's or cross's rows.
  const int64_t sourceCount = !encoder.empty() ? encoder[0].cols : !cross.empty() ? cross[0].cols : 0;
  const int64_t targetCount = !decoder.empty() ? decoder[0].rows : !cross.empty() ? cross[0].rows : 0;
  const auto source = tokensOr(dir / "source_tokens.txt", sourceCount, set.warning);
  const auto target = tokensOr(dir / "target_tokens.txt", targetCount, set.warning);
  auto check = [&](const std::vector<AttentionMap>& layers, const std::string& prefix, int64_t rows, int64_t cols) {
    if (!layers.empty() && (layers[0].rows != rows || layers[0].cols != cols))
      throw InvalidArgument(layerFile(dir, prefix, 0).string(),
                            "is " + std::to_string(layers[0].rows) + " x " + std::to_string(layers[0].cols) +
                                "; the tokens make it " + std::to_string(rows) + " x " + std::to_string(cols));
  };
  check(cross, "cross", targetCount, sourceCount);
  check(encoder, "encoder_self", sourceCount, sourceCount);
  check(decoder, "decoder_self", targetCount, targetCount);

  if (!cross.empty())
    set.kinds.push_back(
        {"cross", "Cross-attention: target (rows) over source (columns)", target, source, std::move(cross)});
  if (!encoder.empty()) set.kinds.push_back({"encoder", "Encoder self-attention", source, source, std::move(encoder)});
  if (!decoder.empty()) {
    // Row t is the step that produced target token t; its query is the token before (<bos> first).
    std::vector<std::string> inputs = {"<bos>"};
    if (!target.empty()) inputs.insert(inputs.end(), target.begin(), target.end() - 1);
    set.kinds.push_back({"decoder", "Decoder self-attention (causal)", target, std::move(inputs), std::move(decoder)});
    set.kinds.back().causal = true;
  }
  return set;
}

}  // namespace vkattn::viewer
