// DeviceMap: one attention map as the viewer keeps it, f32 [rows, cols] row-major on the device,
// at an element offset of a tensor that may hold more (a head's map is a block of its layer's
// tensor). The tensor is shared: a kind's copies and the map shown may point at the same heads.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sources/attention_math.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/ops/attention_map.hpp"
#include "vkattn/ops/attention_options.hpp"

namespace vkattn::viewer {

struct DeviceMap {
  std::shared_ptr<const Tensor> storage;
  int64_t offset = 0;  // in elements
  int64_t rows = 0;
  int64_t cols = 0;

  bool empty() const noexcept { return !storage || rows == 0 || cols == 0; }
  int64_t count() const noexcept { return rows * cols; }
  const Buffer& buffer() const { return storage->buffer(); }
  // [rows, cols], for the runtime's ops.
  TensorView view() const;
};

// The heads of one layer: [heads, rows, cols] in one tensor, head h at offset h * rows * cols.
std::vector<DeviceMap> headsOf(std::shared_ptr<const Tensor> storage, int64_t heads, int64_t rows, int64_t cols);
// A map of its own tensor.
DeviceMap ownMap(Tensor tensor, int64_t rows, int64_t cols);
// softmax(q kᵀ) of every head of q [1, H, Lq, D] against k [1, H, Lk, D], one tensor per head, so
// that each stays within the device's storage-buffer limit however long the sequence.
std::vector<DeviceMap> weightsPerHead(Context& ctx, const Tensor& q, const Tensor& k, const AttentionOptions& options);
// The heads of attention weights [1, H, rows, cols] (attentionWeights, a model's maps), kept where they are.
std::vector<DeviceMap> headsOfWeights(Tensor weights);
// Uploads host layers, once.
std::vector<DeviceMap> uploadLayer(const Context& ctx, const AttentionMap& layer);
std::vector<std::vector<DeviceMap>> uploadLayers(const Context& ctx, const std::vector<AttentionMap>& layers);
DeviceMap uploadMap(const Context& ctx, const Matrix& map);
// The map's values on the host (tests, and the CPU stand-in when the device reduction fails).
Matrix download(const DeviceMap& map);
// A layer's heads (one size) as one host map [heads, rows, cols].
AttentionMap downloadLayer(const std::vector<DeviceMap>& heads);

}  // namespace vkattn::viewer
