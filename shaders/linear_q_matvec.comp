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
// Bindings: 0 x (ELEM), 1 W (32-bit words), 2 y, 3 bias, 4 residual, 5 status (matmul_common.glsl).
// Push constants: MatmulParams (push_constants.h) with m <= 8, k a multiple of the block, bOffset
// and bStrideRow in bytes (even), batch 1.
// Defines: ONE_SUBGROUP (see spec constant 0); ROLLED_SPAN keeps the loop over an invocation's
// SPAN pieces rolled (the CPU drivers' modules: unrolled, lavapipe's LLVM compiled MAX_M x COLS x
// SPAN copies of the product for seconds per variant, and ran no faster).
// Spec constants: 0 workgroup size (a multiple of the subgroup size; with ONE_SUBGROUP defined,
// exactly the subgroup, at least 8 lanes), 3 COLS (output columns per workgroup), 4 ALIGNED_A,
// 10 SPAN (1, 2, 4, or 8 with 64-weight units), 11 GATED (linear_q_matvec_sums.glsl: COLS / 2 output
// columns, each from a gate and an up row of W), 12 MAX_M (rows of x at most: 8, or 1 for M = 1).
// Dispatch: one workgroup per COLS columns (COLS / 2 when GATED), flat over x then y. Loops: K / 8 / SPAN / WG_SIZE
// steps, and the NaN report's K + K / UNIT (linear_q_common.glsl).
// NaN in x, W, bias, residual sets status bits 0, 1, 2, 3.
// Tolerance (tests/test_quantized_linear.cpp): 1e-5 of sum_k |x[m, k]| |W[n, k]| against a double
// reference over the host-decoded weights.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "linear_q_common.glsl"
#include "linear_q_matvec_sums.glsl"

layout(constant_id = MATMUL_SPEC_SPAN) const uint SPAN = 1;

#ifdef ROLLED_SPAN
#define SPAN_LOOP [[dont_unroll]]
#else
#define SPAN_LOOP [[unroll]]
#endif

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
    SPAN_LOOP for (uint jj = 0u; jj < SPAN; ++jj) {
      const uint j = j0 + jj;
      const uint kLo = unitElement(u, 4u * j), kHi = unitElement(u, UNIT / 2u + 4u * j);
      vec4 lo[COLS], hi[COLS];
      [[unroll]] for (uint c = 0u; c < COLS; ++c) decodePiece(h[c], j, lo[c], hi[c]);
      [[unroll]] for (uint m = 0u; m < MAX_M; ++m) {
        if (m < p.m) {
          const vec4 xl = x4(m, kLo), xh = x4(m, kHi);  // read once for the COLS columns
          [[unroll]] for (uint c = 0u; c < COLS; ++c) acc[m][c] += dot(lo[c], xl) + dot(hi[c], xh);
        }
      }
    }
  }
  storeColumnSums(acc, n0, lane);
}
