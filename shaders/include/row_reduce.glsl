// Reductions for kernels that process whole rows. Two modes, chosen by spec constants:
//  - ROW_PER_SUBGROUP: each subgroup owns a row; reductions are subgroup ops, no barriers. This is
//    the CPU-driver mode (a workgroup is one subgroup of 8 SIMD lanes on lavapipe) and the GPU
//    mode for short rows.
//  - otherwise the whole workgroup owns a row; subgroup partials meet in shared memory.
#ifndef VKATTN_ROW_REDUCE_GLSL
#define VKATTN_ROW_REDUCE_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_WORKGROUP_SIZE) const uint WG_SIZE = 64;
layout(constant_id = ROW_SPEC_ROW_PER_SUBGROUP) const bool ROW_PER_SUBGROUP = true;
// Rows one workgroup covers in ROW_PER_SUBGROUP mode (WG_SIZE / expected subgroup size).
layout(constant_id = ROW_SPEC_ROWS_PER_GROUP) const uint ROWS_PER_GROUP = 1;

shared float s_partial[128];
shared float s_partial2[128];

// Lane index and lane count within the row's team.
uint rowLane() { return ROW_PER_SUBGROUP ? gl_SubgroupInvocationID : gl_LocalInvocationID.x; }
uint rowWidth() { return ROW_PER_SUBGROUP ? gl_SubgroupSize : WG_SIZE; }

float rowSum(float v) {
  v = subgroupAdd(v);
  if (ROW_PER_SUBGROUP) return v;
  if (subgroupElect()) s_partial[gl_SubgroupID] = v;
  barrier();
  float total = 0.0;
  for (uint i = 0; i < gl_NumSubgroups; ++i) total += s_partial[i];
  barrier();  // s_partial is reused by the next reduction
  return total;
}

float rowMax(float v) {
  v = subgroupMax(v);
  if (ROW_PER_SUBGROUP) return v;
  if (subgroupElect()) s_partial[gl_SubgroupID] = v;
  barrier();
  float m = -1.0 / 0.0;
  for (uint i = 0; i < gl_NumSubgroups; ++i) m = max(m, s_partial[i]);
  barrier();
  return m;
}

// Team-wide OR of a boolean (used for NaN detection).
bool rowAny(bool b) {
  b = subgroupAny(b);
  if (ROW_PER_SUBGROUP) return b;
  if (subgroupElect()) s_partial2[gl_SubgroupID] = b ? 1.0 : 0.0;
  barrier();
  bool any = false;
  for (uint i = 0; i < gl_NumSubgroups; ++i) any = any || s_partial2[i] != 0.0;
  barrier();
  return any;
}

// Calls ROW_BODY(row) for each row this invocation's team owns.
#define FOR_EACH_ROW(rows, ROW_BODY)                                                           \
  if (ROW_PER_SUBGROUP) {                                                                      \
    for (uint local_ = gl_SubgroupID; local_ < ROWS_PER_GROUP; local_ += gl_NumSubgroups) {    \
      uint row_ = flatGroupIndex() * ROWS_PER_GROUP + local_;                                  \
      if (row_ < (rows)) ROW_BODY(row_);                                                       \
    }                                                                                          \
  } else {                                                                                     \
    uint row_ = flatGroupIndex();                                                              \
    if (row_ < (rows)) ROW_BODY(row_);                                                         \
  }

#endif
