// The maps layout of the attention folder (attention_folder.hpp): attention.npy, or q.npy and
// k.npy, beside their token files.
#include "vkattn/io/attention_folder.hpp"

#include <cmath>

#include "vkattn/core/error.hpp"
#include "vkattn/io/npy.hpp"

namespace vkattn::io {
namespace {

namespace fs = std::filesystem;

std::string dims(int64_t a, int64_t b) {
  return std::to_string(a) + " x " + std::to_string(b);
}

}  // namespace

LayeredArray readLayeredArray(const fs::path& file, const std::string& expected) {
  const std::string name = file.string();
  const NpyArray array = readNpy(file);
  const Shape& s = array.shape;
  if (s.size() < 2 || s.size() > 4) throw InvalidArgument(name, "has shape " + toString(s) + "; expected " + expected);
  LayeredArray out;
  out.shape = s;
  out.rows = s[s.size() - 2];
  out.last = s[s.size() - 1];
  if (s.size() >= 3) out.heads = s[s.size() - 3];
  if (s.size() == 4) out.layers = s[0];
  if (out.rows <= 0 || out.last <= 0 || out.heads <= 0 || out.layers <= 0)
    throw InvalidArgument(name, "has an empty dimension: " + toString(s));
  out.values = npyFloats(array, name);
  return out;
}

std::vector<AttentionMap> readAttentionArray(const fs::path& file) {
  const LayeredArray a = readLayeredArray(file, "[layers?, heads?, rows, cols]");
  for (float v : a.values)
    if (!std::isfinite(v)) throw InvalidArgument(file.string(), "contains NaN or infinity");
  const int64_t perLayer = a.heads * a.rows * a.last;
  std::vector<AttentionMap> layers;
  for (int64_t layer = 0; layer < a.layers; ++layer) {
    AttentionMap map{a.heads, a.rows, a.last, {}};
    map.weights.assign(a.values.begin() + layer * perLayer, a.values.begin() + (layer + 1) * perLayer);
    layers.push_back(std::move(map));
  }
  return layers;
}

QueryKeyArrays readQueryKeyArrays(const fs::path& dir) {
  QueryKeyArrays out{readLayeredArray(dir / kQueryFile, "[layers?, heads?, rows, headDim]"),
                     readLayeredArray(dir / kKeyFile, "[layers?, heads?, cols, headDim]")};
  const LayeredArray &q = out.q, &k = out.k;
  if (q.shape.size() != k.shape.size() || q.layers != k.layers || q.heads != k.heads || q.last != k.last)
    throw InvalidArgument((dir / kKeyFile).string(), "has shape " + toString(k.shape) +
                                                         ", which does not match q.npy's " + toString(q.shape) +
                                                         " (same layers, heads and head dim)");
  return out;
}

bool isAttentionFolder(const fs::path& dir) {
  return fs::exists(dir / kAttentionFile) || (fs::exists(dir / kQueryFile) && fs::exists(dir / kKeyFile));
}

AttentionFolder readAttentionFolder(const fs::path& dir) {
  AttentionFolder folder;
  folder.layers = readAttentionArray(dir / kAttentionFile);
  folder.tokens = readAxisTokens(folderTokenFiles(dir), folder.layers[0].rows, folder.layers[0].cols);
  return folder;
}

void writeAttentionFolder(const fs::path& dir, const Shape& shape, const std::vector<float>& values,
                          const std::vector<std::string>& rowTokens, const std::vector<std::string>& colTokens) {
  const fs::path attention = dir / kAttentionFile;
  if (shape.size() < 2 || shape.size() > 4)
    throw InvalidArgument(attention.string(), "shape " + toString(shape) +
                                                  "; expected [rows, cols], [heads, rows, cols] or [layers, heads, "
                                                  "rows, cols]");
  if (elementCount(shape) != static_cast<int64_t>(values.size()))
    throw InvalidArgument(attention.string(), "shape " + toString(shape) + " holds " +
                                                  std::to_string(elementCount(shape)) + " values; given " +
                                                  std::to_string(values.size()));
  const int64_t rows = shape[shape.size() - 2], cols = shape[shape.size() - 1];
  if (static_cast<int64_t>(rowTokens.size()) != rows || static_cast<int64_t>(colTokens.size()) != cols)
    throw InvalidArgument(dir.string(), std::to_string(rowTokens.size()) + " row and " +
                                            std::to_string(colTokens.size()) + " column tokens for a map of " +
                                            dims(rows, cols));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) throw InvalidArgument(dir.string(), "cannot create the folder");
  writeNpy(attention, shape, values);
  writeTokenFile(dir / kRowTokensFile, rowTokens);
  writeTokenFile(dir / kColTokensFile, colTokens);
}

}  // namespace vkattn::io
