// Shared by every kernel: storage element type, flat workgroup index, input status reporting.
#ifndef VKATTN_COMMON_GLSL
#define VKATTN_COMMON_GLSL

#extension GL_EXT_control_flow_attributes : enable

#ifdef STORAGE_F16
#extension GL_EXT_shader_16bit_storage : require
#define ELEM float16_t
#define ELEM4 f16vec4
#define TO_ELEM(v) float16_t(v)
#define TO_ELEM4(v) f16vec4(v)
#else
#define ELEM float
#define ELEM4 vec4
#define TO_ELEM(v) (v)
#define TO_ELEM4(v) (v)
#endif

// Workgroups are spread over x then y (see groupsFor in the runtime).
uint flatGroupIndex() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// tanh without the overflow of (e^x - e^-x) / (e^x + e^-x): |error| < 1e-7 absolute.
float stableTanh(float x) {
  const float e = exp(-2.0 * abs(x));
  return sign(x) * (1.0 - e) / (1.0 + e);
}

// Bit i of status[slot] is set when the kernel met a NaN in its i-th input; the runtime turns it
// into an error that names the argument.
#define STATUS_BUFFER(binding_index) \
  layout(std430, set = 0, binding = binding_index) buffer StatusBuffer { uint status[]; };

#endif
