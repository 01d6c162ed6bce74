#version 450
// linear() for decode: y[m, n] = act(sum_k x[m, k] W[n, k] + bias[n]) + residual[m, n] for
// M <= 8 rows of x and W [N, K] in a ggml block format (weight_formats.glsl), decoded as it loads.
// Memory-bound: each workgroup owns COLS output columns (rows of W); its invocations stride over
// the rows' pieces (weight_formats.glsl: a unit of 32 or 64 weights is UNIT / 8 pieces, each read
// from one 4-byte word of quants), SPAN consecutive pieces of one unit per invocation: with
// SPAN = 1 consecutive invocations read consecutive words (whole 128-byte lines per subgroup, as
// GPUs want), with SPAN = UNIT / 8 an invocation decodes whole units (its unit's scales once, as
// CPU drivers, which gather lane by lane, want). Each piece is multiplied with every row of x,
// each x load serving the COLS columns; partial sums meet through subgroupAdd, then across
// subgroups in shared memory (unless the module is built with ONE_SUBGROUP). fp32 accumulation.
// With X_NORM, x is normalized by RMSNorm on the way in (a decoder's pre-norm folded into the
// product that reads it): the loop sums x * w (w the norm's weight) and x^2 per row, and each output
// is scaled by its row's 1 / sqrt(mean x^2 + eps) before the bias.
// Bindings: 0 x (ELEM), 1 W (32-bit words), 2 y, 3 bias, 4 residual, 5 status (matmul_common.glsl),
// 6 the norm's weight (ELEM).
// Push constants: MatmulParams (push_constants.h) with m <= 8, k a multiple of the block, bOffset
// and bStrideRow in bytes (even), batch 1.
// Defines: ONE_SUBGROUP (see spec constant 0); ROLLED_SPAN keeps the loop over an invocation's
// SPAN pieces rolled (the CPU drivers' modules: unrolled, lavapipe's LLVM compiled MAX_M x COLS x
// SPAN copies of the product for seconds per variant, and ran no faster).
// Spec constants: 0 workgroup size (a multiple of the subgroup size; with ONE_SUBGROUP defined,
// exactly the subgroup, at least 8 lanes), 3 COLS (output columns per workgroup), 4 ALIGNED_A,
// 10 SPAN (1, 2, 4, or 8 with 64-weight units), 11 GATED (linear_q_matvec_sums.glsl: COLS / 2 output
// columns, each from a gate and an up row of W), 12 MAX_M (rows of x at most: 8, or 1 for M = 1), 13 X_NORM.
// Dispatch: one workgroup per COLS columns (COLS / 2 when GATED), flat over x then y. Loops: K / 8 / SPAN / WG_SIZE
// steps, and the NaN report's K + K / UNIT (linear_q_common.glsl).
// NaN in x, W, bias, residual, the norm's weight sets status bits 0, 1, 2, 3, 4.
// Tolerance (tests/test_quantized_linear.cpp): 1e-5 of sum_k |x[m, k]| |W[n, k]| against a double
// reference over the host-decoded weights.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#define C_QUALIFIER coherent  // the last workgroup reads the rows (linear_tail.glsl)
#include "linear_q_common.glsl"
#include "linear_q_matvec_sums.glsl"
#include "linear_tail.glsl"

layout(constant_id = MATMUL_SPEC_SPAN) const uint SPAN = 1;
layout(std430, set = 0, binding = MATMUL_BINDING_X_NORM) readonly buffer XNorm { ELEM xNorm[]; };

// The norm's weight at x's columns k .. k + 3.
vec4 normWeight4(uint k) {
  const uint i = p.inputNormOffset + k;
  return vec4(float(xNorm[i]), float(xNorm[i + 1u]), float(xNorm[i + 2u]), float(xNorm[i + 3u]));
}

uint blameInputNorm() {
  if (!X_NORM) return 0u;
  bool nan = false;
  for (uint k = 0u; k < p.k; ++k) nan = nan || isnan(float(xNorm[p.inputNormOffset + k]));
  return nan ? 16u : 0u;
}

#ifdef ROLLED_SPAN
#define SPAN_LOOP [[dont_unroll]]
#else
#define SPAN_LOOP [[unroll]]
#endif

void main() {
  const uint n0 = flatGroupIndex() * OUT_COLS;
  if (n0 >= p.n) return;  // uniform per workgroup
  const uint lane = gl_LocalInvocationID.x;
  const bool norm = X_NORM;
  float acc[MAX_M][COLS], squares[MAX_M];
  [[unroll]] for (uint m = 0u; m < MAX_M; ++m) {
    squares[m] = 0.0;
    [[unroll]] for (uint c = 0u; c < COLS; ++c) acc[m][c] = 0.0;
  }
  const uint steps = PIECES / SPAN;  // per unit
  for (uint t = lane; t < p.k / UNIT * steps; t += WG_SIZE) {
    const uint u = t / steps, j0 = t % steps * SPAN;
    Unit h[COLS];
    [[unroll]] for (uint c = 0u; c < COLS; ++c) h[c] = loadUnit(weightRowByte(slotRow(n0, c)), u);
    SPAN_LOOP for (uint jj = 0u; jj < SPAN; ++jj) {
      const uint j = j0 + jj;
      const uint kLo = unitElement(u, 4u * j), kHi = unitElement(u, UNIT / 2u + 4u * j);
      vec4 lo[COLS], hi[COLS];
      [[unroll]] for (uint c = 0u; c < COLS; ++c) decodePiece(h[c], j, lo[c], hi[c]);
      const vec4 wl = norm ? normWeight4(kLo) : vec4(1.0), wh = norm ? normWeight4(kHi) : vec4(1.0);
      [[unroll]] for (uint m = 0u; m < MAX_M; ++m) {
        if (m < p.m) {
          vec4 xl = x4(m, kLo), xh = x4(m, kHi);  // read once for the COLS columns
          if (norm) {
            squares[m] += dot(xl, xl) + dot(xh, xh);
            xl *= wl, xh *= wh;
          }
          [[unroll]] for (uint c = 0u; c < COLS; ++c) acc[m][c] += dot(lo[c], xl) + dot(hi[c], xh);
        }
      }
    }
  }
  storeColumnSums(acc, squares, n0, lane);
  finishRows((p.n + OUT_COLS - 1u) / OUT_COLS);
}
