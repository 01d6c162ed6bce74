#version 450
// Storage: f32, f16
// The baseline matrix product: one output element per invocation, a scalar loop over K, no
// blocking, no vector loads. Same contract as matmul_rows.comp (c = act(alpha a B + bias) +
// residual); the benchmarks measure the tuned kernels against it and the tests check it too.
// Bindings, push constants, spec constants 0-1: matmul_common.glsl (2-6 unused).
// Dispatch: one invocation per (batch, m, n), flat over x then y; the K loop (plus blameNan's K / 4)
// stays below the driver's loop limit. NaN in a, b, bias, residual sets status bits 0, 1, 2, 3.
// Tolerance (tests): as matmul_rows.comp.
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(push_constant) uniform Push { MatmulParams p; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B { ELEM b[]; };
#include "matmul_common.glsl"

void main() {
  const uint index = flatGroupIndex() * WG_SIZE + gl_LocalInvocationID.x;
  if (index >= p.batch * p.m * p.n) return;
  const uint n = index % p.n;
  const uint m = (index / p.n) % p.m;
  const uint bt = index / p.n / p.m;
  float acc = 0.0;
  for (uint k = 0; k < p.k; ++k) acc = fma(float(a[aIndex(bt, m, k)]), float(b[bIndex(bt, n, k)]), acc);
  uint bits = 0u;
  if (storeOutput(bt, m, n, acc, bits)) bits |= blameNan(bt, m, n);
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
