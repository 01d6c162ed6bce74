#version 450
// linear() for decode on GPUs with 8-bit dot products in hardware: linear_q_matvec.comp's work
// (y[m, n] = act(sum_k x[m, k] W[n, k] + bias[n]) + residual[m, n], M <= 8, W in a ggml block
// format) with x quantized to 8 bits first (quantize_x_q8.comp, x_q8.glsl) and each piece's four
// lo and four hi weights kept as integers (weight_formats.glsl's decodePieceInt8), so a piece is
// two packed dot products per row of x and two conversions to float, where the float kernel
// converts every weight. Per group of 32 weights: scale * d_x * dot(q_w, q_x), less the K-quants'
// min times d_x * sum(q_x) once per group. Same work split as linear_q_matvec.comp (COLS output
// columns per workgroup, SPAN consecutive pieces per invocation, sums through subgroupAdd and
// shared memory); a separate, prebuilt module (Debian 12's glslc predates
// GL_EXT_integer_dot_product; tools/drivers/prebuilt_spirv.sh).
// Bindings: matmul's six (linear_q_common.glsl; x itself for the NaN report) and 6 the 8-bit x.
// Push constants: MatmulParams as the float kernel's. Spec constants: 0 workgroup size (a multiple
// of the subgroup size), 3 COLS, 4 ALIGNED_A, 10 SPAN, 11 GATED and 12 MAX_M (as the float kernel's).
// Dispatch: one workgroup per COLS columns (COLS / 2 when GATED), flat over x then y. Loops: K / 8 / SPAN / WG_SIZE
// steps, and the NaN report's K + K / UNIT.
// NaN in x (its block's d), W, bias, residual sets status bits 0, 1, 2, 3.
// Tolerance (tests/test_quantized_linear.cpp): x's rounding, sum_k |W[n, k]| d_x(k) / 2, plus
// 1e-5 of sum_k |x[m, k]| |W[n, k]| against a double reference over x and the host-decoded weights.
#extension GL_EXT_integer_dot_product : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "linear_q_common.glsl"
layout(std430, set = 0, binding = MATMUL_BINDING_X_Q8) readonly buffer XQ8 { uint xq8[]; };
// The blocks' (d, d * sum(q)) pairs seen as vec2s (they start at even words): one 8-byte load.
layout(std430, set = 0, binding = MATMUL_BINDING_X_Q8) readonly buffer XQ8Pairs { vec2 xq8Pairs[]; };
#include "x_q8.glsl"
#include "linear_q_matvec_sums.glsl"

layout(constant_id = MATMUL_SPEC_SPAN) const uint SPAN = 1;

#if defined(WEIGHT_Q6_K)
const uint SCALE_RUN = PIECES / 2;  // pieces that share a scale: Q6_K's 16 elements
#else
const uint SCALE_RUN = PIECES;
#endif

// An RMSNorm before this kernel runs on its own (linear.cpp): no norm weight is bound here.
uint blameInputNorm() { return 0u; }

void main() {
  const uint n0 = flatGroupIndex() * OUT_COLS;
  if (n0 >= p.n) return;  // uniform per workgroup
  const uint lane = gl_LocalInvocationID.x;
  float acc[MAX_M][COLS];
  [[unroll]] for (uint m = 0u; m < MAX_M; ++m)[[unroll]] for (uint c = 0u; c < COLS; ++c) acc[m][c] = 0.0;
  const uint steps = PIECES / SPAN;  // per unit
  for (uint t = lane; t < p.k / UNIT * steps; t += WG_SIZE) {
    const uint u = t / steps, j0 = t % steps * SPAN;
    Unit h[COLS];
    [[unroll]] for (uint c = 0u; c < COLS; ++c) h[c] = loadUnit(weightRowByte(slotRow(n0, c)), u);
    // A span's pieces lie in one group of 32 lo and one of 32 hi columns (one block of x each).
    const uint kLo0 = unitElement(u, 4u * j0), kHi0 = unitElement(u, UNIT / 2u + 4u * j0);
    int lo[SPAN][COLS], hi[SPAN][COLS];  // decoded once, used for every row of x
    [[unroll]] for (uint jj = 0u; jj < SPAN; ++jj)[[unroll]] for (uint c = 0u; c < COLS; ++c) {
        uint l, h_;
        decodePieceInt8(h[c], j0 + jj, l, h_);
        lo[jj][c] = int(l);
        hi[jj][c] = int(h_);
      }
    [[unroll]] for (uint m = 0u; m < MAX_M; ++m) {
      if (m < p.m) {
        const vec2 sl = xq8Pairs[xQ8BlockWord(m, kLo0) / 2u], sh = xq8Pairs[xQ8BlockWord(m, kHi0) / 2u];
        int xl[SPAN], xh[SPAN];  // read once for the COLS columns
        [[unroll]] for (uint jj = 0u; jj < SPAN; ++jj) {
          xl[jj] = int(xq8[xQ8Word(m, kLo0) + jj]);
          xh[jj] = int(xq8[xQ8Word(m, kHi0) + jj]);
        }
        [[unroll]] for (uint c = 0u; c < COLS; ++c) {
          // Integer sums over the pieces that share a scale, then one conversion each.
          int dl = 0, dh = 0;
          [[unroll]] for (uint jj = 0u; jj < SPAN; ++jj) {
            dl += dotPacked4x8EXT(lo[jj][c], xl[jj]);
            dh += dotPacked4x8EXT(hi[jj][c], xh[jj]);
            if ((jj + 1u) % SCALE_RUN == 0u || jj + 1u == SPAN) {
              const vec2 w = pieceScales(h[c], j0 + jj);
              acc[m][c] += w.x * sl.x * float(dl) + w.y * sh.x * float(dh);
              dl = 0;
              dh = 0;
            }
          }
          // The mins, once per group: by the invocation that holds the unit's first piece.
          if (j0 == 0u) {
            const vec2 offsets = unitOffsets(h[c]);
            acc[m][c] -= offsets.x * sl.y + offsets.y * sh.y;
          }
        }
      }
    }
  }
  float squares[MAX_M];  // X_NORM stays false for this kernel
  [[unroll]] for (uint m = 0u; m < MAX_M; ++m) squares[m] = 0.0;
  storeColumnSums(acc, squares, n0, lane);
}
