#include "sources/device_map.hpp"

#include <string>
#include <utility>

#include "vkattn/core/error.hpp"
#include "vkattn/ops/attention.hpp"

namespace vkattn::viewer {

TensorView DeviceMap::view() const {
  TensorView v = storage->view();
  v.shape = {rows, cols};
  v.strides = {cols, 1};
  v.offset = offset;
  return v;
}

std::vector<DeviceMap> headsOf(std::shared_ptr<const Tensor> storage, int64_t heads, int64_t rows, int64_t cols) {
  if (storage->numel() < heads * rows * cols)
    throw InvalidArgument("storage", "holds " + std::to_string(storage->numel()) + " values, not " +
                                         std::to_string(heads) + " maps of " + std::to_string(rows) + " x " +
                                         std::to_string(cols));
  std::vector<DeviceMap> maps;
  for (int64_t h = 0; h < heads; ++h) maps.push_back({storage, h * rows * cols, rows, cols});
  return maps;
}

DeviceMap ownMap(Tensor tensor, int64_t rows, int64_t cols) {
  return headsOf(std::make_shared<const Tensor>(std::move(tensor)), 1, rows, cols).front();
}

std::vector<DeviceMap> weightsPerHead(Context& ctx, const Tensor& q, const Tensor& k, const AttentionOptions& options) {
  const int64_t heads = q.shape()[1], rows = q.shape()[2], cols = k.shape()[2];
  std::vector<DeviceMap> maps;
  for (int64_t h = 0; h < heads; ++h) maps.push_back(ownMap(attentionWeights(ctx, q, k, {h}, options), rows, cols));
  return maps;
}

std::vector<DeviceMap> headsOfWeights(Tensor weights) {
  const Shape shape = weights.shape();
  if (shape.size() != 4 || shape[0] != 1)
    throw InvalidArgument("weights", "must be [1, heads, rows, cols], got " + toString(shape));
  return headsOf(std::make_shared<const Tensor>(std::move(weights)), shape[1], shape[2], shape[3]);
}

std::vector<std::vector<DeviceMap>> uploadLayers(const Context& ctx, const std::vector<AttentionMap>& layers) {
  std::vector<std::vector<DeviceMap>> out;
  for (const AttentionMap& layer : layers) out.push_back(uploadLayer(ctx, layer));
  return out;
}

std::vector<DeviceMap> uploadLayer(const Context& ctx, const AttentionMap& layer) {
  if (layer.heads < 1 || layer.rows < 1 || layer.cols < 1) throw InvalidArgument("layer", "holds no map");
  auto storage = std::make_shared<const Tensor>(ctx.tensor({layer.heads, layer.rows, layer.cols}, layer.weights));
  return headsOf(std::move(storage), layer.heads, layer.rows, layer.cols);
}

DeviceMap uploadMap(const Context& ctx, const Matrix& map) {
  if (map.rows < 1 || map.cols < 1) throw InvalidArgument("map", "is empty");
  return ownMap(ctx.tensor({map.rows, map.cols}, map.values), map.rows, map.cols);
}

Matrix download(const DeviceMap& map) {
  Matrix out(map.rows, map.cols);
  if (map.empty()) return out;
  const std::vector<float> all = map.storage->download();
  const auto first = all.begin() + map.offset;
  std::copy(first, first + map.count(), out.values.begin());
  return out;
}

AttentionMap downloadLayer(const std::vector<DeviceMap>& heads) {
  AttentionMap layer;
  if (heads.empty()) return layer;
  layer.heads = static_cast<int64_t>(heads.size());
  layer.rows = heads.front().rows;
  layer.cols = heads.front().cols;
  for (const DeviceMap& head : heads) {
    if (head.rows != layer.rows || head.cols != layer.cols) throw InvalidArgument("heads", "differ in shape");
    const Matrix m = download(head);
    layer.weights.insert(layer.weights.end(), m.values.begin(), m.values.end());
  }
  return layer;
}

}  // namespace vkattn::viewer
