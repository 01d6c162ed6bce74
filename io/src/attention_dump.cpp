// The dump layout of the attention folder (attention_folder.hpp): per kind and layer
// <kind>_layer<L>.npy [heads, rows, cols], with source_tokens.txt and target_tokens.txt.
#include <cmath>

#include "vkattn/core/error.hpp"
#include "vkattn/io/attention_folder.hpp"
#include "vkattn/io/npy.hpp"

namespace vkattn::io {
namespace {

namespace fs = std::filesystem;

std::string shapeText(const AttentionMap& m) {
  return "[" + std::to_string(m.heads) + ", " + std::to_string(m.rows) + ", " + std::to_string(m.cols) + "]";
}

// Layers 0.. of one kind, each [heads, rows, cols] of one shape.
std::vector<AttentionMap> readLayers(const fs::path& dir, const std::string& kind) {
  std::vector<AttentionMap> layers;
  for (std::size_t layer = 0; fs::exists(dumpLayerFile(dir, kind, layer)); ++layer) {
    const std::string name = dumpLayerFile(dir, kind, layer).string();
    const NpyArray array = readNpy(name);
    if (array.shape.size() != 3)
      throw InvalidArgument(name, "has shape " + toString(array.shape) + "; expected [heads, rows, cols]");
    AttentionMap map{array.shape[0], array.shape[1], array.shape[2], npyFloats(array, name)};
    for (float v : map.weights)
      if (!std::isfinite(v)) throw InvalidArgument(name, "contains NaN or infinity");
    if (!layers.empty() && (map.heads != layers[0].heads || map.rows != layers[0].rows || map.cols != layers[0].cols))
      throw InvalidArgument(name, "has shape " + toString(array.shape) + ", unlike layer 0's " + shapeText(layers[0]));
    layers.push_back(std::move(map));
  }
  return layers;
}

// The tokens of `file`, else positions.
std::vector<std::string> tokensOr(const fs::path& file, int64_t n, std::string& note) {
  if (!fs::exists(file)) return positionLabels(n);
  TokenFile read = readTokenFile(file, file.string());
  if (static_cast<int64_t>(read.tokens.size()) != n)
    throw InvalidArgument(file.string(),
                          "has " + std::to_string(read.tokens.size()) + " tokens; the maps have " + std::to_string(n));
  if (!read.note.empty()) note += (note.empty() ? "" : "; ") + read.note;
  return std::move(read.tokens);
}

// Source count: the encoder's or cross's columns; target count: the decoder's or cross's rows.
int64_t sourceCount(const AttentionDump& d) {
  return !d.encoderSelf.empty() ? d.encoderSelf[0].cols : !d.cross.empty() ? d.cross[0].cols : 0;
}
int64_t targetCount(const AttentionDump& d) {
  return !d.decoderSelf.empty() ? d.decoderSelf[0].rows : !d.cross.empty() ? d.cross[0].rows : 0;
}

// Each kind's layer 0 against the token counts it is drawn over.
void checkAgainstTokens(const fs::path& dir, const AttentionDump& d, int64_t source, int64_t target) {
  auto check = [&](const std::vector<AttentionMap>& layers, const char* kind, int64_t rows, int64_t cols) {
    if (!layers.empty() && (layers[0].rows != rows || layers[0].cols != cols))
      throw InvalidArgument(dumpLayerFile(dir, kind, 0).string(),
                            "is " + std::to_string(layers[0].rows) + " x " + std::to_string(layers[0].cols) +
                                "; the tokens make it " + std::to_string(rows) + " x " + std::to_string(cols));
  };
  check(d.cross, kCrossKind, target, source);
  check(d.encoderSelf, kEncoderSelfKind, source, source);
  check(d.decoderSelf, kDecoderSelfKind, target, target);
}

void writeLayers(const fs::path& dir, const char* kind, const std::vector<AttentionMap>& layers) {
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const AttentionMap& m = layers[l];
    const fs::path file = dumpLayerFile(dir, kind, l);
    if (elementCount({m.heads, m.rows, m.cols}) != static_cast<int64_t>(m.weights.size()))
      throw InvalidArgument(file.string(), "shape " + shapeText(m) + " holds " +
                                               std::to_string(elementCount({m.heads, m.rows, m.cols})) +
                                               " values; given " + std::to_string(m.weights.size()));
    if (l > 0 && (m.heads != layers[0].heads || m.rows != layers[0].rows || m.cols != layers[0].cols))
      throw InvalidArgument(file.string(), "has shape " + shapeText(m) + ", unlike layer 0's " + shapeText(layers[0]));
    writeNpy(file, {m.heads, m.rows, m.cols}, m.weights);
  }
}

}  // namespace

fs::path dumpLayerFile(const fs::path& dir, const std::string& kind, std::size_t layer) {
  return dir / (kind + "_layer" + std::to_string(layer) + ".npy");
}

bool isAttentionDump(const fs::path& dir) {
  for (const char* kind : {kCrossKind, kEncoderSelfKind, kDecoderSelfKind})
    if (fs::exists(dumpLayerFile(dir, kind, 0))) return true;
  return false;
}

AttentionDump readAttentionDump(const fs::path& dir) {
  AttentionDump d;
  d.cross = readLayers(dir, kCrossKind);
  d.encoderSelf = readLayers(dir, kEncoderSelfKind);
  d.decoderSelf = readLayers(dir, kDecoderSelfKind);
  const int64_t source = sourceCount(d), target = targetCount(d);
  d.sourceTokens = tokensOr(dir / kSourceTokensFile, source, d.note);
  d.targetTokens = tokensOr(dir / kTargetTokensFile, target, d.note);
  checkAgainstTokens(dir, d, source, target);
  return d;
}

void writeAttentionDump(const fs::path& dir, const AttentionDump& dump) {
  const auto source = static_cast<int64_t>(dump.sourceTokens.size());
  const auto target = static_cast<int64_t>(dump.targetTokens.size());
  checkAgainstTokens(dir, dump, source, target);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) throw InvalidArgument(dir.string(), "cannot create the folder");
  writeLayers(dir, kEncoderSelfKind, dump.encoderSelf);
  writeLayers(dir, kDecoderSelfKind, dump.decoderSelf);
  writeLayers(dir, kCrossKind, dump.cross);
  writeTokenFile(dir / kSourceTokensFile, dump.sourceTokens);
  // Row t of the decoder maps is the step that produced target token t.
  writeTokenFile(dir / kTargetTokensFile, dump.targetTokens);
}

}  // namespace vkattn::io
