#version 450
// Storage: f32, f16
// y = a + b elementwise, b either a's shape (bCols == count) or one row of bCols elements added
// to every row of a (bias / residual broadcast over the last dim).
// Bindings: 0 a, 1 b (ELEM, read), 2 y (ELEM, write; may alias an input), all also viewed as
// ELEM4; 3 status. Push: ElementwiseParams. Spec: 0 workgroup, 1 VEC4 (count and bCols multiples
// of 4). Dispatch: ceil(count / 4) invocations, flat over x then y. NaN in a / b sets status bit
// 0 / 1. Tolerance (tests): exact in f32 (one rounding, as the fp32 reference sum);
// 1e-3 + 1e-3 |ref| for f16 storage.
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"
#include "elementwise.glsl"

layout(push_constant) uniform Push { ElementwiseParams p; };
layout(std430, set = 0, binding = ADD_BINDING_A) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = ADD_BINDING_A) readonly buffer A4 { ELEM4 a4[]; };
layout(std430, set = 0, binding = ADD_BINDING_B) readonly buffer B { ELEM b[]; };
layout(std430, set = 0, binding = ADD_BINDING_B) readonly buffer B4 { ELEM4 b4[]; };
layout(std430, set = 0, binding = ADD_BINDING_Y) writeonly buffer Y { ELEM y[]; };
layout(std430, set = 0, binding = ADD_BINDING_Y) writeonly buffer Y4 { ELEM4 y4[]; };
STATUS_BUFFER(ADD_BINDING_STATUS)

void main() {
  const uint i = vec4Index();
  if (4 * i >= p.count) return;
  bool nanA = false, nanB = false;
  if (VEC4) {
    const vec4 va = vec4(a4[i]), vb = vec4(b4[i % (p.bCols / 4)]);
    nanA = any(isnan(va));
    nanB = any(isnan(vb));
    y4[i] = TO_ELEM4(va + vb);
  } else {
    [[unroll]] for (uint e = 0; e < 4; ++e) {
      const uint at = 4 * i + e;
      if (at < p.count) {
        const float va = float(a[at]), vb = float(b[at % p.bCols]);
        nanA = nanA || isnan(va);
        nanB = nanB || isnan(vb);
        y[at] = TO_ELEM(va + vb);
      }
    }
  }
  if (nanA || nanB) atomicOr(status[p.statusSlot], (nanA ? 1u : 0u) | (nanB ? 2u : 0u));
}
