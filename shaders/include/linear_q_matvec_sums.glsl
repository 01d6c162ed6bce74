// The end of linear's matrix-vector weight kernels (linear_q_matvec.comp, linear_q_matvec_int8.comp):
// each invocation's partial sums acc[m][c] (row m of x, column n0 + c) meet through subgroupAdd,
// then across subgroups in shared memory (unless the module is built with ONE_SUBGROUP: the
// workgroup is one subgroup, so no shared memory and no barrier, which CPU drivers pay for), and
// lane m finishes and stores row m's columns, with the NaN report. Include after linear_q_common.glsl.
// With X_NORM the row's RMSNorm scale is applied to the sums first (linear_q_matvec.comp).
// GATED (gatedLinear): W holds 2N rows, the gate projection's N then the up projection's, and
// y[m, n] = act(x W[n]^T) * (x W[N + n]^T); a workgroup's COLS slots are then its OUT_COLS = COLS / 2
// output columns' gate rows followed by their up rows, so each x load serves both.
#ifndef VKATTN_LINEAR_Q_MATVEC_SUMS_GLSL
#define VKATTN_LINEAR_Q_MATVEC_SUMS_GLSL

#ifdef ONE_SUBGROUP
const bool kOneSubgroup = true;
#else
const bool kOneSubgroup = false;
#endif

// Rows of x a dispatch holds at most: 1 for a decoded token, whose registers then hold one row's
// sums instead of eight, else 8.
layout(constant_id = MATMUL_SPEC_X_ROWS) const uint MAX_M = 8;
shared float partial[MAX_M][COLS][WG_SIZE];  // [row of x][slot][subgroup]
layout(constant_id = MATMUL_SPEC_X_NORM) const bool X_NORM = false;  // linear_q_matvec.comp
shared float partialSquares[X_NORM ? MAX_M : 1u][X_NORM ? WG_SIZE : 1u];  // [row of x][subgroup]

layout(constant_id = MATMUL_SPEC_GATED) const bool GATED = false;
const uint OUT_COLS = GATED ? COLS / 2u : COLS;  // output columns per workgroup

// The weight row that slot c of the workgroup whose first output column is n0 reads (the last
// column's rows past N, which are computed but not stored).
uint slotRow(uint n0, uint c) {
  if (!GATED) return min(n0 + c, p.n - 1u);
  return c < OUT_COLS ? min(n0 + c, p.n - 1u) : p.n + min(n0 + c - OUT_COLS, p.n - 1u);
}

// GATED's output (m, n) from its gate and up sums (the runtime passes no bias, residual or
// alpha); true when either sum is NaN.
bool storeGated(uint m, uint n, float gate, float up) {
  c[p.cOffset + m * p.cStrideM + n] = TO_ELEM(activate(gate, p.activation) * up);
  return isnan(gate) || isnan(up);
}

// Bit 4 when X_NORM and the norm's weight holds a NaN (defined by the kernel, which binds
// that weight).
uint blameInputNorm();

// squares[m]: with X_NORM, the invocation's share of row m's sum of x^2 (acc then holds
// sums over x * w, w the norm's weight): the sums meet like acc's, and each output is scaled by
// the row's 1 / sqrt(mean x^2 + eps) before the bias (RMSNorm folded into the product).
void storeColumnSums(float acc[MAX_M][COLS], float squares[MAX_M], uint n0, uint lane) {
  const bool norm = X_NORM;
  float mine[COLS];  // lane m's: row m's sums
  float mineSquares = 0.0;
  [[unroll]] for (uint c = 0u; c < COLS; ++c) mine[c] = 0.0;
  [[unroll]] for (uint m = 0u; m < MAX_M; ++m) {
    if (m < p.m) {
      [[unroll]] for (uint c = 0u; c < COLS; ++c) {
        const float s = subgroupAdd(acc[m][c]);
        if (kOneSubgroup) {
          if (lane == m) mine[c] = s;
        } else if (subgroupElect()) {
          partial[m][c][gl_SubgroupID] = s;
        }
      }
      if (norm) {
        const float s = subgroupAdd(squares[m]);
        if (kOneSubgroup) {
          if (lane == m) mineSquares = s;
        } else if (subgroupElect()) {
          partialSquares[m][gl_SubgroupID] = s;
        }
      }
    }
  }
  if (!kOneSubgroup) {
    barrier();  // every subgroup's partial sums are in shared memory
    if (lane < p.m)
      for (uint s = 0u; s < gl_NumSubgroups; ++s) {
        [[unroll]] for (uint c = 0u; c < COLS; ++c) mine[c] += partial[lane][c][s];
        if (norm) mineSquares += partialSquares[lane][s];
      }
  }
  if (lane < p.m) {
    if (norm) {
      const float scale = inversesqrt(mineSquares / float(p.k) + p.inputNormEps);
      [[unroll]] for (uint c = 0u; c < COLS; ++c) mine[c] *= scale;
    }
    uint bits = 0u;
    [[unroll]] for (uint c = 0u; c < OUT_COLS; ++c) {
      const uint n = n0 + c;
      if (n >= p.n) continue;
      if (GATED) {
        if (storeGated(lane, n, mine[c], mine[min(OUT_COLS + c, COLS - 1u)]))
          bits |= blameWeightNan(lane, n) | blameWeightNan(lane, p.n + n) | blameInputNorm();
      } else if (storeOutput(0u, lane, n, mine[c], bits)) {
        bits |= blameWeightNan(lane, n) | blameInputNorm();
      }
    }
    if (bits != 0u) atomicOr(status[p.statusSlot], bits);
  }
}

#endif
