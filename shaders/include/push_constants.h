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

// encode_storage.comp: x[xElement + i] (f32) stored as y's element yElement + i for i < count.
struct EncodeParams {
  uint count;
  uint xElement;
  uint yElement;
  uint statusSlot;
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
  uint vec4Rows;     // cols % 4 == 0: read and write through the vec4 views
  uint hasResidual;  // rms_norm.comp: y = residual + the norm
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

// rope_append.comp: a decoder step's queries rotated in place, its keys rotated into the key
// cache and its values copied into the value cache. Each of q, k, v, keysOut, valuesOut is a
// [batch, heads, seq, headDim] view (q with qHeads heads, the others kvHeads) at its offset with
// element strides B, H, L (the head dim contiguous); q, k and v lie in one buffer (a stacked
// projection's rows). Positions are positionOffset + l, or with ROPE_APPEND_DEVICE_POSITIONS
// read from the positions binding; with ROPE_APPEND_CACHE_AT_POSITIONS row (b, l)'s key and
// value go to the caches' row at its position (keysOut and valuesOut then hold cacheRows rows
// from their offsets; a position outside them is reported, bit 4). With ROPE_APPEND_HEAD_NORMS,
// each query head is first normalized by RMSNorm with the weight qNorm[headDim], each key head
// with kNorm (Qwen3's and Gemma 3's head norms), epsilon headNormEps. 128 bytes.
struct RopeAppendParams {
  uint batch;
  uint qHeads;
  uint kvHeads;
  uint seq;
  uint headDim;
  uint rotaryDim;
  uint qOffset, qStrideB, qStrideH, qStrideL;
  uint kOffset, kStrideB, kStrideH, kStrideL;
  uint vOffset, vStrideB, vStrideH, vStrideL;
  uint keysOffset, keysStrideB, keysStrideH, keysStrideL;
  uint valuesOffset, valuesStrideB, valuesStrideH, valuesStrideL;
  int positionOffset;
  uint flags;  // ROPE_APPEND_* (kernel_interface.h)
  uint positionsStrideB;
  uint cacheRows;
  float headNormEps;
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

// Activation ids: the spec constant of the matmul kernels and activation.comp; the C++ enum
// vkattn::Activation has the same order (checked by static_assert).
#define VKATTN_ACT_NONE 0
#define VKATTN_ACT_RELU 1
#define VKATTN_ACT_GELU 2
#define VKATTN_ACT_GELU_TANH 3
#define VKATTN_ACT_SILU 4

// matmul_{rows,tiled,naive}.comp: c[b, m, n] = act(alpha sum_k a[b, m, k] B(b, n, k) + bias[n])
// + res[b, m, n]. Element (b, m, k) of a is at aOffset + b * aStrideB + m * aStrideM + k; B(b, n, k)
// at bOffset + b * bStrideB + n * bStrideRow + k (B is [N, K]) or + k * bStrideRow + n ([K, N]);
// c and res likewise with their own offsets and strides; bias[n] at biasOffset + n. The tile
// grid per batch is tilesM x tilesN (the naive kernel ignores it). The output side (activation,
// bias, residual) is chosen per call here, not by spec constants: it runs once per output, and
// every spec constant multiplies the pipelines the big unrolled kernels must build (seconds each).
struct MatmulParams {
  uint batch;
  uint m;
  uint n;
  uint k;
  uint aOffset, aStrideB, aStrideM;
  uint bOffset, bStrideB, bStrideRow;
  uint cOffset, cStrideB, cStrideM;
  uint resOffset, resStrideB, resStrideM;
  uint biasOffset;
  float alpha;
  uint tilesM;
  uint tilesN;
  uint statusSlot;
  uint activation;   // VKATTN_ACT_*
  uint hasBias;
  uint hasResidual;
  // linear_q_matvec.comp built with MATMUL_SPEC_X_NORM: x normalized by RMSNorm before the
  // product, x / sqrt(mean_k x^2 + inputNormEps) * w[k] with w at inputNormOffset of
  // MATMUL_BINDING_X_NORM (the other kernels ignore these).
  uint inputNormOffset;
  float inputNormEps;
};

// argmax.comp: ids[r] = the lowest column holding row r's largest value, over `rows` rows of
// `cols` values.
struct ArgmaxParams {
  uint rows;
  uint cols;
  uint statusSlot;
};

// sample_tokens.comp: ids[r] = a token drawn from row r's logits with uniforms[r], as
// TokenSampler draws it: logits softcapped (softcap > 0: softcap * tanh(l / softcap)), the topK
// most likely kept (0: all), then the shortest prefix whose probability reaches topP; temperature
// 0 takes the most likely token.
struct SampleTokensParams {
  uint rows;
  uint cols;
  uint statusSlot;
  uint topK;
  float temperature;
  float topP;
  float softcap;
};

// linear_tail.glsl (MATMUL_BINDING_TAIL_PARAMS, a storage buffer): the step the block-format
// matrix-vector kernels' last workgroup runs over the output rows. rope for LINEAR_TAIL_ROPE_APPEND
// (its views index the output buffer); for LINEAR_TAIL_POST_NORM the norm's weight at normOffset
// of MATMUL_BINDING_TAIL_NORM, its eps, and the residual's row m at resOffset + m * resStrideM of
// MATMUL_BINDING_RESIDUAL.
struct LinearTailParams {
  RopeAppendParams rope;
  uint normOffset;
  float normEps;
  uint resOffset, resStrideM;
};

// activation.comp / swiglu.comp / add.comp: `count` elements; invocation i covers elements
// 4i .. 4i + 3. add.comp's b has `bCols` elements repeated over a's rows (bCols == count when b is
// a's shape).
struct ElementwiseParams {
  uint count;
  uint bCols;
  uint statusSlot;
};

// embedding.comp: out[t, :] = table[ids[t], :] (+ positions[positionOffset + t % seq, :]) for
// `tokens` ids of rows of `dim` features; table has `vocab` rows.
struct EmbeddingParams {
  uint tokens;
  uint dim;
  uint vocab;
  uint seq;
  uint positionOffset;
  uint hasPositions;
  uint statusSlot;
  float scale;  // each row's factor (Gemma's sqrt(d)), before positions are added
};

#ifdef __cplusplus
}  // namespace vkattn::pc
#endif
#endif
