#version 450
// Storage: f32, f16
// x [M, K] (ELEM) to 8-bit blocks of 32 (x_q8.glsl) for linear_q_matvec_int8.comp: one invocation
// per block reads its 32 values, takes d = max |x| / 127 and stores round(x / d) (0 where the
// block is all zeros), d and d * sum(q). A NaN makes the block's d NaN, so the products come out NaN
// and the matrix-vector kernel's report blames x.
// Bindings: 0 x (ELEM), 5 status (unused), 6 the 8-bit x (words, written); the matmul kernels' other
// bindings are bound and unused (one descriptor layout for both kernels).
// Push constants: MatmulParams (push_constants.h): m <= 8, k a multiple of 32, aOffset, aStrideM.
// Spec constant 0: workgroup size. Dispatch: m * k / 32 invocations, flat over x then y.
// Tolerance: exact against round-to-nearest (ties either way), which the integer-dot kernel's
// tolerance accounts for.
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_WORKGROUP_SIZE) const uint WG_SIZE = 64;
layout(push_constant) uniform Push { MatmulParams p; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_X_Q8) writeonly buffer XQ8 { uint xq8[]; };
#include "x_q8.glsl"

void main() {
  const uint blocksPerRow = p.k / 32u;
  const uint id = flatGroupIndex() * WG_SIZE + gl_LocalInvocationID.x;
  if (id >= p.m * blocksPerRow) return;
  const uint m = id / blocksPerRow, k0 = id % blocksPerRow * 32u;
  const uint first = p.aOffset + m * p.aStrideM + k0;
  float v[32];
  float amax = 0.0;
  bool nan = false;
  [[unroll]] for (uint i = 0u; i < 32u; ++i) {
    v[i] = float(a[first + i]);
    amax = max(amax, abs(v[i]));
    nan = nan || isnan(v[i]);
  }
  const float inverse = amax > 0.0 ? 127.0 / amax : 0.0;
  int sum = 0;
  [[unroll]] for (uint w = 0u; w < 8u; ++w) {
    uint word = 0u;
    [[unroll]] for (uint b = 0u; b < 4u; ++b) {
      const int q = clamp(int(round(v[4u * w + b] * inverse)), -127, 127);
      sum += q;
      word |= uint(q & 0xFF) << (8u * b);
    }
    xq8[xQ8Word(m, k0) + w] = word;
  }
  const float d = nan ? uintBitsToFloat(0x7FC00000u) : amax / 127.0;
  const uint at = xQ8BlockWord(m, k0);
  xq8[at] = floatBitsToUint(d);
  xq8[at + 1u] = floatBitsToUint(d * float(sum));
}
