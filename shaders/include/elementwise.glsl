// Shared by the elementwise kernels: invocation i covers elements 4i .. 4i + 3, through the vec4
// views when VEC4 (count % 4 == 0: one 16-byte load per lane on lavapipe instead of four), else
// element by element with a bounds check.
#ifndef VKATTN_ELEMENTWISE_GLSL
#define VKATTN_ELEMENTWISE_GLSL

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_WORKGROUP_SIZE) const uint WG_SIZE = 256;
layout(constant_id = ELEMENTWISE_SPEC_VEC4) const bool VEC4 = false;
layout(constant_id = ELEMENTWISE_SPEC_ACTIVATION) const uint ACTIVATION = 0;  // activation.comp, swiglu.comp's gate

uint vec4Index() { return flatGroupIndex() * WG_SIZE + gl_LocalInvocationID.x; }

#endif
