#version 450
// Test input for the NV -> KHR cooperative-matrix rewriter (never dispatched): A and B declared
// alike, so glslc gives them one type, which has no KHR equivalent; the rewriter must refuse it.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer Data { float16_t h[]; };
layout(std430, binding = 1) buffer Out { float f[]; };

void main() {
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a, b;
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  coopMatLoadNV(a, h, 0, 16, false);
  coopMatLoadNV(b, h, 256, 16, true);
  acc = coopMatMulAddNV(a, b, acc);
  coopMatStoreNV(acc, f, 0, 16, false);
}
