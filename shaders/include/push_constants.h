// Push-constant blocks shared by the GLSL kernels and the C++ runtime: one struct per op.
// Only 32-bit scalars, so std430 (GLSL) and the C++ layout agree; each struct stays <= 128 bytes.
#ifndef VKATTN_PUSH_CONSTANTS_H
#define VKATTN_PUSH_CONSTANTS_H

#ifdef __cplusplus
#include <cstdint>
namespace vkattn::pc {
using uint = std::uint32_t;
#endif

// copy.comp: y[i] = x[i] for i < count (vec4 words).
struct CopyParams {
  uint count;
};

// softmax.comp: y[r, :] = softmax(scale * x[r, :] + mask[maskRow(r), :]).
// Rows are indexed as (r0, r1, r2) with r = (r0 * dim1 + r1) * dim2 + r2; the mask row is
// r0 * maskStride0 + r1 * maskStride1 + r2 * maskStride2 (stride 0 broadcasts).
struct SoftmaxParams {
  uint rows;
  uint cols;
  uint dim1;
  uint dim2;
  uint maskStride0;
  uint maskStride1;
  uint maskStride2;
  uint hasMask;
  float scale;
  uint statusSlot;
};

// layer_norm.comp / rms_norm.comp: normalise each row of `cols` values.
struct NormParams {
  uint rows;
  uint cols;
  uint hasWeight;
  uint hasBias;
  float eps;
  uint statusSlot;
};

// rope.comp: x viewed as [batch, heads, seq, headDim] with element strides; rotates feature pair i
// (i < rotaryDim / 2) of each vector by angle position * invFreq[i], copies the rest.
struct RopeParams {
  uint batch;
  uint heads;
  uint seq;
  uint headDim;
  uint rotaryDim;
  uint strideB;
  uint strideH;
  uint strideL;
  uint outStrideB;
  uint outStrideH;
  uint outStrideL;
  uint positionMode;      // 0: offset + l, 1: positions[l], 2: positions[b * seq + l]
  int positionOffset;
  uint interleaved;
  uint xOffset;
  uint outOffset;
  uint statusSlot;
};

#ifdef __cplusplus
}  // namespace vkattn::pc
#endif
#endif
