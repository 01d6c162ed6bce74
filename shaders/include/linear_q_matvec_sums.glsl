// The end of linear's matrix-vector weight kernels (linear_q_matvec.comp, linear_q_matvec_int8.comp):
// each invocation's partial sums acc[m][c] (row m of x, column n0 + c) meet through subgroupAdd,
// then across subgroups in shared memory (unless the module is built with ONE_SUBGROUP: the
// workgroup is one subgroup, so no shared memory and no barrier, which CPU drivers pay for), and
// lane m finishes and stores row m's columns, with the NaN report. Include after linear_q_common.glsl.
#ifndef VKATTN_LINEAR_Q_MATVEC_SUMS_GLSL
#define VKATTN_LINEAR_Q_MATVEC_SUMS_GLSL

#ifdef ONE_SUBGROUP
const bool kOneSubgroup = true;
#else
const bool kOneSubgroup = false;
#endif

const uint MAX_M = 8;  // rows of x per dispatch
shared float partial[MAX_M][COLS][WG_SIZE];  // [row of x][column][subgroup]

void storeColumnSums(float acc[MAX_M][COLS], uint n0, uint lane) {
  float mine[COLS];  // lane m's: row m's sums
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
    }
  }
  if (!kOneSubgroup) {
    barrier();  // every subgroup's partial sums are in shared memory
    if (lane < p.m)
      for (uint s = 0u; s < gl_NumSubgroups; ++s)
        [[unroll]] for (uint c = 0u; c < COLS; ++c) mine[c] += partial[lane][c][s];
  }
  if (lane < p.m) {
    uint bits = 0u;
    [[unroll]] for (uint c = 0u; c < COLS; ++c) {
      const uint n = n0 + c;
      if (n < p.n && storeOutput(0u, lane, n, mine[c], bits)) bits |= blameWeightNan(lane, n);
    }
    if (bits != 0u) atomicOr(status[p.statusSlot], bits);
  }
}

#endif
