// Subgroup-scope matrix fragments, A (FM x FK), B (FK x FN) and the accumulator (FM x FN), with
// three implementations behind one interface:
//   - FRAG_KHR: VK_KHR_cooperative_matrix. FM, FN, FK are specialization constants set by the
//     runtime from the shapes the device reports (NVIDIA 16x16x16, AMD RDNA3 16x16x16, Intel Xe2
//     8x16x16, lavapipe 8x8x8), f16 A and B, f32 accumulator.
//   - default: VK_NV_cooperative_matrix (NVIDIA's first extension), 16 x 16 x 16.
//   - FRAG_EMULATED: plain GLSL for devices without cooperative matrices, 16 x 16 x 16, so CI runs
//     the kernels' tiling, masking and softmax logic everywhere. Lane l of an 8-lane subgroup
//     (lavapipe's fixed size; the runtime checks it) holds elements x = l + 8 i (row x / 16, column
//     x % 16), 32 fp32 registers per fragment. A product exchanges A's elements with subgroup
//     shuffles, unrolled at pipeline creation, so no loop counts against llvmpipe's loop limit.
// Which element a lane holds is opaque in the hardware implementations: kernels either go through
// shared memory for row-wise work, or read the layout the device reports for its accumulators
// (fragment_layout_probe.comp; attention_coopmat.comp's register softmax) and then touch
// elements through FRAG_AT(frag, i) (element i of this lane's FRAG_LENGTH(frag)).
// The includer defines FRAG_IN (element type of the arrays A and B are loaded from: float16_t, or
// float for the emulated f32 build) and includes kernel_interface.h first. Loads and stores are
// macros because GLSL cannot pass a shared or buffer array by reference:
// FRAG_LOAD_A/B(frag, array, offset, stride, colMajor), FRAG_LOAD_ACC(frag, array, offset, stride),
// FRAG_STORE_ACC(frag, array, offset, stride) (row-major). Element (r, c) of a row-major fragment
// is at offset + r * stride + c, of a column-major one at offset + c * stride + r. The hardware
// needs offsets and strides that are multiples of 16 bytes.
#ifndef VKATTN_FRAGMENT_GLSL
#define VKATTN_FRAGMENT_GLSL

#extension GL_KHR_shader_subgroup_basic : require

#if defined(FRAG_KHR)

#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require

layout(constant_id = FRAG_SPEC_M) const uint FM = 16;
layout(constant_id = FRAG_SPEC_N) const uint FN = 16;
layout(constant_id = FRAG_SPEC_K) const uint FK = 16;
#define FragA coopmat<float16_t, gl_ScopeSubgroup, FM, FK, gl_MatrixUseA>
#define FragB coopmat<float16_t, gl_ScopeSubgroup, FK, FN, gl_MatrixUseB>
#define FragAcc coopmat<float, gl_ScopeSubgroup, FM, FN, gl_MatrixUseAccumulator>

// Loops over fragments stay unrolled so every fragment lives in registers.
#define FRAG_LOOP [[unroll]]

FragAcc fragFill(float value) { return FragAcc(value); }
FragAcc fragMulAdd(FragA a, FragB b, FragAcc c) { return coopMatMulAdd(a, b, c); }
FragAcc fragScale(FragAcc c, float s) { return c * s; }

#define FRAG_LAYOUT_(colMajor) ((colMajor) ? gl_CooperativeMatrixLayoutColumnMajor : gl_CooperativeMatrixLayoutRowMajor)
#define FRAG_LOAD_A(frag, arr, offset, stride, colMajor) coopMatLoad(frag, arr, offset, stride, FRAG_LAYOUT_(colMajor))
#define FRAG_LOAD_B(frag, arr, offset, stride, colMajor) coopMatLoad(frag, arr, offset, stride, FRAG_LAYOUT_(colMajor))
#define FRAG_LOAD_ACC(frag, arr, offset, stride) coopMatLoad(frag, arr, offset, stride, gl_CooperativeMatrixLayoutRowMajor)
#define FRAG_STORE_ACC(frag, arr, offset, stride) coopMatStore(frag, arr, offset, stride, gl_CooperativeMatrixLayoutRowMajor)
// The accumulator rounded to FRAG_IN into an array of FRAG_IN.
#define FRAG_STORE_ACC_IN(frag, arr, offset, stride)                                                        \
  coopMatStore(coopmat<FRAG_IN, gl_ScopeSubgroup, FM, FN, gl_MatrixUseAccumulator>(frag), arr, offset, stride, \
               gl_CooperativeMatrixLayoutRowMajor)
#define FRAG_AT(frag, i) frag[i]
#define FRAG_LENGTH(frag) uint(frag.length())
FragA fragFillA(float value) { return FragA(FRAG_IN(value)); }

#elif !defined(FRAG_EMULATED)

#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

const uint FM = 16, FN = 16, FK = 16;
#define FragA fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define FragB fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define FragAcc fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

#define FRAG_LOOP [[unroll]]

FragAcc fragFill(float value) { return FragAcc(value); }
FragAcc fragMulAdd(FragA a, FragB b, FragAcc c) { return coopMatMulAddNV(a, b, c); }
FragAcc fragScale(FragAcc c, float s) { return c * s; }

#define FRAG_LOAD_A(frag, arr, offset, stride, colMajor) coopMatLoadNV(frag, arr, offset, stride, colMajor)
#define FRAG_LOAD_B(frag, arr, offset, stride, colMajor) coopMatLoadNV(frag, arr, offset, stride, colMajor)
#define FRAG_LOAD_ACC(frag, arr, offset, stride) coopMatLoadNV(frag, arr, offset, stride, false)
#define FRAG_STORE_ACC(frag, arr, offset, stride) coopMatStoreNV(frag, arr, offset, stride, false)
#define FRAG_STORE_ACC_IN(frag, arr, offset, stride) coopMatStoreNV(FragA(frag), arr, offset, stride, false)
#define FRAG_AT(frag, i) frag[i]
#define FRAG_LENGTH(frag) uint(frag.length())
FragA fragFillA(float value) { return FragA(FRAG_IN(value)); }

#else  // FRAG_EMULATED

#extension GL_KHR_shader_subgroup_shuffle : require

const uint FM = FRAG_EMULATED_SIZE, FN = FRAG_EMULATED_SIZE, FK = FRAG_EMULATED_SIZE;
// The emulation's element layout and its product are written for 8-lane subgroups of 16 x 16.
#define FRAG_LANES FRAG_EMULATED_LANES
const uint FRAG_ELEMS = 256 / FRAG_LANES;

struct FragA { float e[FRAG_ELEMS]; };
struct FragB { float e[FRAG_ELEMS]; };
struct FragAcc { float e[FRAG_ELEMS]; };

// Fragment arrays are indexed by loop counters here: rolled loops keep the code (and llvmpipe's
// compile time) small, and their few iterations per key tile stay far below the loop limit.
#define FRAG_LOOP [[dont_unroll]]

// Row and column of the i-th element this lane holds: row i / 2, column lane + 8 (i % 2).
uint fragRow(uint i) { return i / 2; }
uint fragCol(uint i) { return gl_SubgroupInvocationID + 8 * (i % 2); }

FragAcc fragFill(float value) {
  FragAcc c;
  [[unroll]] for (uint i = 0; i < FRAG_ELEMS; ++i) c.e[i] = value;
  return c;
}

FragAcc fragScale(FragAcc c, float s) {
  [[unroll]] for (uint i = 0; i < FRAG_ELEMS; ++i) c.e[i] *= s;
  return c;
}

// Lane l holds columns l and l + 8 of every row: b.e[2 k + h] is B(k, l + 8 h), the lane's own
// columns of B, and A(r, k) is a.e[2 r + k / 8] of lane k % 8, fetched with a shuffle whose lane is
// a constant once the loops are unrolled (an element broadcast on llvmpipe). No shared memory and
// no barrier, which keeps llvmpipe's pipeline builds short.
FragAcc fragMulAdd(FragA a, FragB b, FragAcc c) {
  [[unroll]] for (uint r = 0; r < 16; ++r) {
    [[unroll]] for (uint k = 0; k < 16; ++k) {
      const float ark = subgroupShuffle(a.e[2 * r + k / 8], k % 8);
      c.e[2 * r] = fma(ark, b.e[2 * k], c.e[2 * r]);
      c.e[2 * r + 1] = fma(ark, b.e[2 * k + 1], c.e[2 * r + 1]);
    }
  }
  return c;
}

#define FRAG_ELEMENT_INDEX_(i, offset, stride, colMajor) \
  ((offset) + ((colMajor) ? fragCol(i) * (stride) + fragRow(i) : fragRow(i) * (stride) + fragCol(i)))
#define FRAG_LOAD_A(frag, arr, offset, stride, colMajor) \
  [[unroll]] for (uint i_ = 0; i_ < FRAG_ELEMS; ++i_)      \
    frag.e[i_] = float(arr[FRAG_ELEMENT_INDEX_(i_, offset, stride, colMajor)])
#define FRAG_LOAD_B(frag, arr, offset, stride, colMajor) FRAG_LOAD_A(frag, arr, offset, stride, colMajor)
#define FRAG_LOAD_ACC(frag, arr, offset, stride) FRAG_LOAD_A(frag, arr, offset, stride, false)
#define FRAG_STORE_ACC(frag, arr, offset, stride) \
  [[unroll]] for (uint i_ = 0; i_ < FRAG_ELEMS; ++i_) arr[FRAG_ELEMENT_INDEX_(i_, offset, stride, false)] = frag.e[i_]
#define FRAG_STORE_ACC_IN(frag, arr, offset, stride) \
  [[unroll]] for (uint i_ = 0; i_ < FRAG_ELEMS; ++i_) arr[FRAG_ELEMENT_INDEX_(i_, offset, stride, false)] = FRAG_IN(frag.e[i_])
#define FRAG_AT(frag, i) frag.e[i]
#define FRAG_LENGTH(frag) FRAG_ELEMS
FragA fragFillA(float value) {
  FragA a;
  [[unroll]] for (uint i = 0; i < FRAG_ELEMS; ++i) a.e[i] = value;
  return a;
}

#endif
#endif
