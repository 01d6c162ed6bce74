// Shared by the matmul kernels (rows, tiled, naive): their specialization constants (one id map,
// so the runtime builds one SpecConstants), the output side (alpha, bias, activation, residual,
// store) and the NaN report. The includer declares `p` (MatmulParams) and the scalar views
// a[] (binding 0) and b[] (binding 1) first.
// Bindings: 0 a, 1 b (ELEM, read), 2 c (ELEM, write), 3 bias (ELEM [N]; any buffer when unused),
// 4 residual (ELEM; any buffer when unused; may be c itself), 5 status.
#ifndef VKATTN_MATMUL_COMMON_GLSL
#define VKATTN_MATMUL_COMMON_GLSL
#include "kernel_interface.h"

#include "activation.glsl"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_WORKGROUP_SIZE) const uint WG_SIZE = 64;
layout(constant_id = MATMUL_SPEC_B_KN) const bool B_KN = false;        // B is [K, N]; else [N, K] (linear's weight)
layout(constant_id = MATMUL_SPEC_ROWS) const uint ROWS = 8;            // rows kernel: output rows per workgroup
layout(constant_id = MATMUL_SPEC_COLS) const uint COLS = 4;            // rows kernel: output columns per invocation
layout(constant_id = MATMUL_SPEC_ALIGNED_A) const bool ALIGNED_A = false;   // a's rows start at multiples of 4 elements
layout(constant_id = MATMUL_SPEC_ALIGNED_B) const bool ALIGNED_B = false;   // so do B's rows (B [N, K] only)
layout(constant_id = MATMUL_SPEC_KC) const uint KC = 32;             // rows kernel: K per step, a multiple of 4

// c has no qualifier: the residual may be bound to the same buffer, read then written by the
// invocation that owns the element. A kernel whose last workgroup reads what the others stored
// (linear_tail.glsl) defines C_QUALIFIER as coherent.
#ifndef C_QUALIFIER
#define C_QUALIFIER
#endif
layout(std430, set = 0, binding = MATMUL_BINDING_C) C_QUALIFIER buffer C { ELEM c[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_BIAS) readonly buffer Bias { ELEM bias[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_RESIDUAL) readonly buffer Res { ELEM res[]; };
STATUS_BUFFER(MATMUL_BINDING_STATUS)

uint aIndex(uint bt, uint m, uint k) { return p.aOffset + bt * p.aStrideB + m * p.aStrideM + k; }
uint bIndex(uint bt, uint n, uint k) {
  return p.bOffset + bt * p.bStrideB + (B_KN ? k * p.bStrideRow + n : n * p.bStrideRow + k);
}

// Finishes and stores output (bt, m, n) from its dot product `acc`. Returns true when the value
// before the activation is NaN (its cause is found by blameNan); a NaN residual sets bit 3 here.
bool storeOutput(uint bt, uint m, uint n, float acc, inout uint bits) {
  float v = p.alpha * acc;
  if (p.hasBias != 0u) v += float(bias[p.biasOffset + n]);
  const bool nan = isnan(v);
  v = activate(v, p.activation);
  if (p.hasResidual != 0u) {
    const float r = float(res[p.resOffset + bt * p.resStrideB + m * p.resStrideM + n]);
    if (isnan(r)) bits |= 8u;
    v += r;
  }
  c[p.cOffset + bt * p.cStrideB + m * p.cStrideM + n] = TO_ELEM(v);
  return nan;
}

// Output (bt, m, n) came out NaN before its activation: blames bias (bit 2) if bias[n] is NaN,
// else a (bit 0) and / or b (bit 1) if row m of a or column n of B holds a NaN. Nothing is set when
// only infinities met (inf - inf, 0 * inf): that is arithmetic, not bad input. Walks K four
// elements per iteration (the runtime budgets the loop for it).
uint blameNan(uint bt, uint m, uint n) {
  if (p.hasBias != 0u && isnan(float(bias[p.biasOffset + n]))) return 4u;
  bool nanA = false, nanB = false;
  for (uint k = 0; k < p.k; k += 4) {
    [[unroll]] for (uint i = 0; i < 4; ++i) {
      if (k + i < p.k) {
        nanA = nanA || isnan(float(a[aIndex(bt, m, k + i)]));
        nanB = nanB || isnan(float(b[bIndex(bt, n, k + i)]));
      }
    }
  }
  return (nanA ? 1u : 0u) | (nanB ? 2u : 0u);
}

#endif
