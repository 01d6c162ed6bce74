#version 450
// Test input for the NV -> KHR cooperative-matrix rewriter (never dispatched): A, B and the
// accumulator as distinct types (dimensions from distinct specialization constants), loads with
// a constant and a specialised layout, an f32 -> f16 accumulator conversion, a store and a length.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(constant_id = 0) const uint A_ROWS = 16;
layout(constant_id = 1) const uint B_ROWS = 16;
layout(constant_id = 2) const bool B_COLUMN_MAJOR = true;
layout(std430, binding = 0) buffer Data { float16_t h[]; };
layout(std430, binding = 1) buffer Out { float f[]; };
layout(std430, binding = 2) buffer Length { uint n; };
shared float16_t staged[16 * 16];

void main() {
  fcoopmatNV<16, gl_ScopeSubgroup, A_ROWS, 16> a;
  fcoopmatNV<16, gl_ScopeSubgroup, B_ROWS, 16> b;
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  coopMatLoadNV(a, h, 0, 16, false);
  coopMatLoadNV(b, staged, 0, 16, B_COLUMN_MAJOR);
  acc = coopMatMulAddNV(a, b, acc);
  coopMatStoreNV(acc, f, 0, 16, false);
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> half_acc = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(acc);
  coopMatStoreNV(half_acc, h, 256, 16, true);
  n = acc.length();
}
