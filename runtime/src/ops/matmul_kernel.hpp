// Launching the matmul kernels (rows, tiled, naive) for linear() and matmul(): the caller fills
// the MatmulParams sizes, offsets and strides from checked views; this picks the variant and its
// shape for the device, checks the per-invocation loop budget and records the dispatch.
#pragma once

#include <push_constants.h>

#include <string>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tensor.hpp"
#include "vkattn/ops/activation.hpp"
#include "vkattn/ops/matmul_variant.hpp"

namespace vkattn::detail {

struct LinearTail;

struct MatmulCall {
  pc::MatmulParams params{};  // everything but tilesM, tilesN, statusSlot
  DType dtype = DType::F32;
  bool bKN = false;  // B is [K, N]
  Activation activation = Activation::None;
  const Buffer* a = nullptr;
  const Buffer* b = nullptr;
  const Buffer* c = nullptr;
  const Buffer* bias = nullptr;      // nullptr: none
  const Buffer* residual = nullptr;  // nullptr: none
  // The RMSNorm weight the matrix-vector weight kernel normalizes x by (params.inputNormOffset,
  // inputNormEps); nullptr: none.
  const Buffer* inputNorm = nullptr;
  // The step the matrix-vector weight kernel's last workgroup runs (linear_tail.hpp); nullptr: none.
  const LinearTail* tail = nullptr;
};

// Records the product (and submits unless a batch is open). `op` and `statusNames` (the names
// of a, b, bias, residual) name NaN inputs in the errors.
void runMatmul(Context& ctx, MatmulCall& call, MatmulVariant requested, const std::string& op,
               std::vector<std::string> statusNames);

}  // namespace vkattn::detail
