#version 450
// dequantize: a weight matrix stored in a ggml block format (Q8_0, Q4_0, Q4_K, Q5_K, Q6_K) decoded
// to f32 or f16 rows, element by element through weight_elements.glsl, the decoding the
// tensor-addressed matrix products run as their decode function (linear's dequantized kernel
// multiplies these rows with the float kernels).
// Interface: dequantize.h. Spec: SPEC_WORKGROUP_SIZE. Dispatch: one invocation per output element,
// flat over x then y. A decoded NaN sets status bit 0.
// Tolerance: f32 out exactly the host's decoding (core/storage_formats); f16 out that, rounded to
// half by the device's conversion (to nearest even, or toward zero: 2^-10 relative).
#include "common.glsl"
#include "dequantize.h"
#include "kernel_interface.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(push_constant) uniform Push { DequantizeParams p; };
layout(std430, set = 0, binding = DEQUANTIZE_BINDING_WEIGHT) readonly buffer W { uint W_WORDS[]; };
layout(std430, set = 0, binding = DEQUANTIZE_BINDING_OUT) writeonly buffer O { ELEM o[]; };
STATUS_BUFFER(DEQUANTIZE_BINDING_STATUS)

// A block is named by the index of its first 16-bit half.
#define BLOCK_HANDLE uint
uint blockHalf(const in uint h, uint i) { return (W_WORDS[(h + i) >> 1] >> (((h + i) & 1u) * 16u)) & 0xFFFFu; }
#include "weight_elements.glsl"

void main() {
  const uint i = flatGroupIndex() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i >= p.rows * p.cols) return;
  const uint r = i / p.cols, c = i % p.cols;
  const uint block = (p.firstByte + r * p.rowBytes + c / BLOCK_ELEMENTS * BLOCK_BYTES) >> 1;
  const float v = blockElement(block, c % BLOCK_ELEMENTS);
  o[p.outOffset + i] = TO_ELEM(v);
  if (isnan(v)) atomicOr(status[p.statusSlot], 1u);
}
