#version 450
// Storage: f32, f16
// A decoder step after its stacked q/k/v projection, in one dispatch: RoPE on the queries in
// place, RoPE on the keys into the key cache, the values copied into the value cache (what
// rope.comp twice and a copy would do in three), with the query and key heads first normalized
// by RMSNorm where the model has head norms (Qwen3, Gemma 3). The rotation is rope.comp's
// (rope_angle.glsl: exact phases at any position), at positions positionOffset + l or read from
// the positions binding (and then, where asked, into the caches' rows at those positions).
// Bindings: 0 q, k and v (ELEM; q read and written), 1 keys out, 2 values out (ELEM), 3 step
// (uvec2), 4 status, 5 and 6 the query and key heads' norm weights (ELEM [headDim]), 7 positions
// (int).
// Push: RopeAppendParams (push_constants.h). Spec: 0 workgroup size (any; the
// runtime takes headDim / 2 rounded up to the subgroup: a pair per invocation).
// Dispatch: one workgroup per (b, l), flat over x then y, which runs rope_append_row.glsl on its
// row. Loops: qHeads + 2 kvHeads head steps (twice as many with head norms), each over
// headDim / 2 / WG_SIZE pairs.
// NaN in q, k, v sets status bits 0, 1, 2; in the norm weights 3; a position outside the caches 4.
// Tolerance (tests/test_rope.cpp): rope.comp's, |y - ref| <= 2e-6 (|x| <= 1) for f32, 2e-3 for
// f16; values copied exactly; with head norms RMSNorm's 1e-5 relative on top.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"

layout(local_size_x_id = SPEC_WORKGROUP_SIZE) in;
layout(constant_id = SPEC_WORKGROUP_SIZE) const uint WG_SIZE = 64;
layout(push_constant) uniform Push { RopeAppendParams p; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_QKV) buffer Qkv { ELEM qkv[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_KEYS) writeonly buffer Keys { ELEM keys[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_VALUES) writeonly buffer Values { ELEM values[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_PHASE_STEP) readonly buffer Step { uvec2 phaseStep[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_Q_NORM) readonly buffer QNorm { ELEM qNorm[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_K_NORM) readonly buffer KNorm { ELEM kNorm[]; };
layout(std430, set = 0, binding = ROPE_APPEND_BINDING_POSITIONS) readonly buffer Positions { int positions[]; };
STATUS_BUFFER(ROPE_APPEND_BINDING_STATUS)

#define ROPE_ROW_QKV qkv
#define ROPE_ROW_KEYS keys
#define ROPE_ROW_VALUES values
#define ROPE_ROW_PHASE phaseStep
#define ROPE_ROW_Q_NORM qNorm
#define ROPE_ROW_K_NORM kNorm
#define ROPE_ROW_POSITIONS positions
#include "rope_append_row.glsl"

void main() {
  const uint row = flatGroupIndex();  // (b, l)
  if (row >= p.batch * p.seq) return;  // uniform per workgroup
  const uint bits = ropeAppendRow(p, row / p.seq, row % p.seq);
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);  // each invocation's own features
}
