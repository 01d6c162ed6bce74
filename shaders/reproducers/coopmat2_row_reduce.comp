#version 450
// A minimal reproducer for VK_NV_cooperative_matrix2's row reductions (tools/drivers/coopmat2_row_reduce.cpp
// runs it): one subgroup loads a ROWS x COLS fp32 accumulator from `a` (row-major) and writes four
// ROWS x COLS blocks to `o`: each row's max (coopMatReduceNV, row, max), each row's sum (the same
// with +), each element's row and column as the per-element operation hands them (row * 1000 +
// col), and the matrix itself stored back. The host compares every element with the CPU.
// Spec: 0 the workgroup size (the subgroup size, required by the pipeline), 1 ROWS, 2 COLS.
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ROWS = 16;
layout(constant_id = 2) const uint COLS = 16;
layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer O { float o[]; };

#define Mat coopmat<float, gl_ScopeSubgroup, ROWS, COLS, gl_MatrixUseAccumulator>

float maxOf(const in float x, const in float y) { return max(x, y); }
float addOf(const in float x, const in float y) { return x + y; }
float placeOf(const in uint row, const in uint col, const in float x) { return float(row * 1000u + col); }

void main() {
  Mat m;
  coopMatLoad(m, a, 0, COLS, gl_CooperativeMatrixLayoutRowMajor);
  Mat r;
  coopMatReduceNV(r, m, gl_CooperativeMatrixReduceRowNV, maxOf);
  coopMatStore(r, o, 0, COLS, gl_CooperativeMatrixLayoutRowMajor);
  coopMatReduceNV(r, m, gl_CooperativeMatrixReduceRowNV, addOf);
  coopMatStore(r, o, ROWS * COLS, COLS, gl_CooperativeMatrixLayoutRowMajor);
  coopMatPerElementNV(r, m, placeOf);
  coopMatStore(r, o, 2 * ROWS * COLS, COLS, gl_CooperativeMatrixLayoutRowMajor);
  coopMatStore(m, o, 3 * ROWS * COLS, COLS, gl_CooperativeMatrixLayoutRowMajor);
}
