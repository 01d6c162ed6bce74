#version 450
// Storage: f32, f16
// y = act(gate) * up elementwise (the gated MLP of LLaMA-style models: act = SiLU, SwiGLU; Gemma's:
// act = tanh GELU, GeGLU), act from activation.glsl.
// Bindings: 0 gate, 1 up (ELEM, read), 2 y (ELEM, write; may alias an input), all also viewed
// as ELEM4; 3 status. Push: ElementwiseParams (bCols unused). Spec: 0 workgroup, 1 VEC4, 2 the gate's activation id.
// Dispatch: ceil(count / 4) invocations, flat over x then y. NaN in gate / up sets status bit 0 / 1.
// Tolerance (tests): |y - ref| <= 1e-6 + 1e-5 |ref| (f32); 1e-3 + 1e-3 |ref| (f16 storage).
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"
#include "elementwise.glsl"
#include "activation.glsl"

layout(push_constant) uniform Push { ElementwiseParams p; };
layout(std430, set = 0, binding = SWIGLU_BINDING_GATE) readonly buffer G { ELEM gate[]; };
layout(std430, set = 0, binding = SWIGLU_BINDING_GATE) readonly buffer G4 { ELEM4 gate4[]; };
layout(std430, set = 0, binding = SWIGLU_BINDING_UP) readonly buffer U { ELEM up[]; };
layout(std430, set = 0, binding = SWIGLU_BINDING_UP) readonly buffer U4 { ELEM4 up4[]; };
layout(std430, set = 0, binding = SWIGLU_BINDING_Y) writeonly buffer Y { ELEM y[]; };
layout(std430, set = 0, binding = SWIGLU_BINDING_Y) writeonly buffer Y4 { ELEM4 y4[]; };
STATUS_BUFFER(SWIGLU_BINDING_STATUS)

void main() {
  const uint i = vec4Index();
  if (4 * i >= p.count) return;
  bool nanG = false, nanU = false;
  if (VEC4) {
    const vec4 g = vec4(gate4[i]), u = vec4(up4[i]);
    nanG = any(isnan(g));
    nanU = any(isnan(u));
    y4[i] = TO_ELEM4(
        vec4(activate(g.x, ACTIVATION), activate(g.y, ACTIVATION), activate(g.z, ACTIVATION), activate(g.w, ACTIVATION)) *
        u);
  } else {
    [[unroll]] for (uint e = 0; e < 4; ++e) {
      if (4 * i + e < p.count) {
        const float g = float(gate[4 * i + e]), u = float(up[4 * i + e]);
        nanG = nanG || isnan(g);
        nanU = nanU || isnan(u);
        y[4 * i + e] = TO_ELEM(activate(g, ACTIVATION) * u);
      }
    }
  }
  if (nanG || nanU) atomicOr(status[p.statusSlot], (nanG ? 1u : 0u) | (nanU ? 2u : 0u));
}
