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
  uint vec4Rows;  // cols % 4 == 0: read and write through the vec4 views
};

// layer_norm.comp / rms_norm.comp: normalise each row of `cols` values.
struct NormParams {
  uint rows;
  uint cols;
  uint hasWeight;
  uint hasBias;
  float eps;
  uint statusSlot;
  uint vec4Rows;  // cols % 4 == 0: read and write through the vec4 views
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

// attention_*.comp: O[b, h, i, :] = softmax(scale * Q K^T + mask) V for query head h, kv head
// h / kvGroup. Q, K, V, O are [batch, heads, len, dim] views with element strides (dim stride 1).
// Logits are kept in log2 units: scaleLog2 = scale * log2(e). Key j is in the band of query row i
// when -windowLeft <= j - (i + diagShift) <= windowRight (diagShift: 0 top-left, lk - lq
// bottom-right causal alignment). Bias / keep-mask element (b, h, i, j) is at
// b * strideB + h * strideH + i * strideL + j (stride 0 broadcasts). The naive scores kernel
// reuses the o* strides for its [batch, heads, lq, lk] score buffer.
struct AttentionParams {
  uint batch;
  uint heads;      // query heads (selected heads in the scores kernel)
  uint kvGroup;    // query heads per kv head
  uint lq;
  uint lk;
  uint qStrideB, qStrideH, qStrideL, qOffset;
  uint kStrideB, kStrideH, kStrideL, kOffset;
  uint vStrideB, vStrideH, vStrideL, vOffset;
  uint oStrideB, oStrideH, oStrideL, oOffset;
  float scaleLog2;
  int diagShift;
  int windowLeft;
  int windowRight;
  uint biasStrideB, biasStrideH, biasStrideL;
  uint keepStrideB, keepStrideH, keepStrideL;
  uint statusSlot;
};

// additive_project.comp: y[r, a] = sum_d x[r, d] * w[a, d] (x [rows, inDim], w [outDim, inDim]).
struct ProjectParams {
  uint rows;
  uint inDim;
  uint outDim;
  uint statusSlot;
};

// additive_scores.comp / additive_pv.comp: Bahdanau attention over [batch, lq|lk, dim] tensors.
struct AdditiveParams {
  uint batch;
  uint lq;
  uint lk;
  uint attnDim;     // A: rows of w_q and w_k, length of v
  uint dv;
  uint hasBias;
  uint biasStrideB, biasStrideL;  // in elements; 0 broadcasts
  uint hasKeep;
  uint keepStrideB, keepStrideL;
  uint hasKeyLengths;
  uint causal;      // top-left: query i sees keys j <= i
  uint statusSlot;
};

#ifdef __cplusplus
}  // namespace vkattn::pc
#endif
#endif
