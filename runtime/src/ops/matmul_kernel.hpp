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

// The workgroup-scope cooperative-matrix-2 kernels' tile (matmul_coopmat2_wg.comp,
// linear_q_coopmat2_wg.comp): one BM x BN tile of the output per workgroup, BK of K per slice.
// 128 x 128 over 256 invocations, 128 x 256 where N is wide (the tiles llama.cpp's NVIDIA kernel
// uses), BK 32, rounded to the device's granularities; nothing measured yet chose them.
struct Coopmat2WorkgroupShape {
  uint32_t bm = 128, bn = 128, bk = 32, workgroup = 256;
};
// That tile for N output columns; Unsupported, its message starting with `kernel`, where the
// device cannot run workgroup-scope matrices with tensor addressing.
Coopmat2WorkgroupShape coopmat2WorkgroupShape(const Context& ctx, uint32_t n, const std::string& kernel);

// Records the product (and submits unless a batch is open). `op` and `statusNames` (the names
// of a, b, bias, residual) name NaN inputs in the errors.
void runMatmul(Context& ctx, MatmulCall& call, MatmulVariant requested, const std::string& op,
               std::vector<std::string> statusNames);

}  // namespace vkattn::detail
