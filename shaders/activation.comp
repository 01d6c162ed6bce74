#version 450
// Storage: f32, f16
// y = act(x) elementwise (activation.glsl: ReLU, exact GELU, tanh GELU, SiLU).
// Bindings: 0 x, 1 y (ELEM, also viewed as ELEM4; may be the same buffer), 2 status.
// Push: ElementwiseParams (bCols unused). Spec: 0 workgroup, 1 VEC4, 2 activation id.
// Dispatch: ceil(count / 4) invocations, flat over x then y. A NaN in x sets status bit 0.
// Tolerance (tests): |y - ref| <= 1e-6 + 1e-5 |ref| (f32); 1e-3 + 1e-3 |ref| (f16 storage).
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"
#include "elementwise.glsl"
#include "activation.glsl"

layout(push_constant) uniform Push { ElementwiseParams p; };
layout(std430, set = 0, binding = ACTIVATION_BINDING_X) readonly buffer X { ELEM x[]; };
layout(std430, set = 0, binding = ACTIVATION_BINDING_X) readonly buffer X4 { ELEM4 x4[]; };
layout(std430, set = 0, binding = ACTIVATION_BINDING_Y) writeonly buffer Y { ELEM y[]; };
layout(std430, set = 0, binding = ACTIVATION_BINDING_Y) writeonly buffer Y4 { ELEM4 y4[]; };
STATUS_BUFFER(ACTIVATION_BINDING_STATUS)

void main() {
  const uint i = vec4Index();
  if (4 * i >= p.count) return;
  bool nan = false;
  if (VEC4) {
    const vec4 v = vec4(x4[i]);
    nan = any(isnan(v));
    y4[i] = TO_ELEM4(vec4(activate(v.x, ACTIVATION), activate(v.y, ACTIVATION), activate(v.z, ACTIVATION),
                          activate(v.w, ACTIVATION)));
  } else {
    [[unroll]] for (uint e = 0; e < 4; ++e) {
      if (4 * i + e < p.count) {
        const float v = float(x[4 * i + e]);
        nan = nan || isnan(v);
        y[4 * i + e] = TO_ELEM(activate(v, ACTIVATION));
      }
    }
  }
  if (nan) atomicOr(status[p.statusSlot], 1u);
}
