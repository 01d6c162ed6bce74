// Subgroup-scope 16 x 16 matrix fragments with two implementations behind one interface:
//   - hardware (default): VK_NV_cooperative_matrix. FragA (M x K, f16), FragB (K x N, f16) and
//     FragAcc (M x N, f32) take their row counts from distinct specialization constants, so glslc
//     emits three distinct SPIR-V types and a later NV -> KHR rewrite can give each its use
//     (MatrixA / MatrixB / Accumulator) from the type alone.
//   - FRAG_EMULATED: plain GLSL for devices without cooperative matrices (lavapipe), so CI runs the
//     kernels' tiling, masking and softmax logic. Lane l of an 8-lane subgroup (lavapipe's fixed
//     size; the runtime checks it) holds elements x = l + 8 i (row x / 16, column x % 16), 32 fp32
//     registers per fragment. A product exchanges A's elements with subgroup shuffles; every loop
//     over elements is unrolled at pipeline creation, so none counts against llvmpipe's loop
//     limit, and the unrolled body (256 shuffles, 512 multiply-adds) is emitted once per call
//     site.
// Which element a lane holds is opaque in the hardware implementation, so kernels touch fragment
// elements only through these functions and go through shared memory for row-wise work.
// The includer defines FRAG_IN (element type of the arrays A and B are loaded from: float16_t, or
// float for the emulated f32 build) and includes kernel_interface.h first. Loads and
// stores are macros because GLSL cannot pass a shared or buffer array by reference:
// FRAG_LOAD_A/B(frag, array, offset, stride, colMajor), FRAG_LOAD_ACC(frag, array, offset, stride),
// FRAG_STORE_ACC(frag, array, offset, stride) (row-major). Element (r, c) of a row-major fragment
// is at offset + r * stride + c, of a column-major one at offset + c * stride + r. The hardware
// needs offsets and strides that are multiples of 16 bytes.
#ifndef VKATTN_FRAGMENT_GLSL
#define VKATTN_FRAGMENT_GLSL

#extension GL_KHR_shader_subgroup_basic : require

#ifndef FRAG_EMULATED

#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

// Both 16; distinct constants make distinct types (see above). Never specialized by the runtime.
layout(constant_id = FRAG_SPEC_A_ROWS) const uint FRAG_A_ROWS = 16;
layout(constant_id = FRAG_SPEC_B_ROWS) const uint FRAG_B_ROWS = 16;
#define FragA fcoopmatNV<16, gl_ScopeSubgroup, FRAG_A_ROWS, 16>
#define FragB fcoopmatNV<16, gl_ScopeSubgroup, FRAG_B_ROWS, 16>
#define FragAcc fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

// Loops over fragments stay unrolled so every fragment lives in registers.
#define FRAG_LOOP [[unroll]]

FragAcc fragFill(float value) { return FragAcc(value); }
FragAcc fragMulAdd(FragA a, FragB b, FragAcc c) { return coopMatMulAddNV(a, b, c); }
FragAcc fragScale(FragAcc c, float s) { return c * s; }

#define FRAG_LOAD_A(frag, arr, offset, stride, colMajor) coopMatLoadNV(frag, arr, offset, stride, colMajor)
#define FRAG_LOAD_B(frag, arr, offset, stride, colMajor) coopMatLoadNV(frag, arr, offset, stride, colMajor)
#define FRAG_LOAD_ACC(frag, arr, offset, stride) coopMatLoadNV(frag, arr, offset, stride, false)
#define FRAG_STORE_ACC(frag, arr, offset, stride) coopMatStoreNV(frag, arr, offset, stride, false)

#else  // FRAG_EMULATED

#extension GL_KHR_shader_subgroup_shuffle : require

// The emulation's element layout and its product are written for 8-lane subgroups.
#define FRAG_LANES 8
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
// a constant once the loops are unrolled (an element broadcast on llvmpipe). No shared memory and no
// barrier. Measured on lavapipe (Mesa 22.3, cold): ~5-9 s to build one attention pipeline, where
// staging both operands in shared memory and reading them back per output took ~45 s.
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

#endif  // FRAG_EMULATED
#endif
