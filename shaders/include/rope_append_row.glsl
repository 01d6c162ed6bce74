// A decoder step's RoPE and key/value-cache append for one (b, l) row of its stacked q/k/v
// projection, by one workgroup: every query head normalized by RMSNorm where the model has head
// norms (Qwen3, Gemma 3) and rotated in place, every key head likewise into the key cache, every
// value head copied into the value cache. The rotation is rope.comp's (rope_angle.glsl: exact
// phases at any position), at position positionOffset + l. Invocation i takes pairs i, i + WG_SIZE,
// ... of each head (a head's pairs meet through workgroup_sum.glsl for its norm). Used by
// rope_append.comp (a workgroup per row) and by linear_tail.glsl (the product's last workgroup).
// The includer declares WG_SIZE, RopeAppendParams (push_constants.h) and defines the views:
// ROPE_ROW_QKV (the projection's rows, ELEM, read and written), ROPE_ROW_KEYS, ROPE_ROW_VALUES
// (ELEM, written), ROPE_ROW_PHASE (uvec2 phase steps), ROPE_ROW_Q_NORM, ROPE_ROW_K_NORM (ELEM),
// ROPE_ROW_POSITIONS (int, read with ROPE_APPEND_DEVICE_POSITIONS).
// Returns the report's bits: NaN in q 1, k 2, v 4, the norms' weights 8; a position outside the
// caches' rows 16 (that row then writes nothing).
#ifndef VKATTN_ROPE_APPEND_ROW_GLSL
#define VKATTN_ROPE_APPEND_ROW_GLSL

#include "rope_angle.glsl"
#include "workgroup_sum.glsl"

// RoPE's (cos, sin) for pair `pair` at `position`; the identity past the rotary pairs.
vec2 ropeCosSin(uint pair, uint rotaryPairs, int position) {
  if (pair >= rotaryPairs) return vec2(1.0, 0.0);
  const float angle = rotationAngle(position, ROPE_ROW_PHASE[pair]);
  return vec2(cos(angle), sin(angle));
}

// One query (isKey false) or key head whose features start at `from` in ROPE_ROW_QKV: normalized
// when the model has head norms, rotated, and written at `to` of ROPE_ROW_QKV (a query, in place)
// or ROPE_ROW_KEYS. Returns (NaN read, NaN in the norm's weight).
bvec2 ropeRowHead(RopeAppendParams rp, int position, uint from, uint to, bool isKey) {
  const uint halfDim = rp.headDim / 2u, rotaryPairs = rp.rotaryDim / 2u;
  const bool norms = (rp.flags & ROPE_APPEND_HEAD_NORMS) != 0u, interleaved = (rp.flags & ROPE_APPEND_INTERLEAVED) != 0u;
  float scale = 1.0;
  if (norms) {
    float squares = 0.0;
    for (uint pair = gl_LocalInvocationIndex; pair < halfDim; pair += WG_SIZE) {
      uint i0, i1;
      ropePairFeatures(pair, rotaryPairs, rp.rotaryDim, interleaved, i0, i1);
      const vec2 x = vec2(float(ROPE_ROW_QKV[from + i0]), float(ROPE_ROW_QKV[from + i1]));
      squares += dot(x, x);
    }
    scale = inversesqrt(workgroupSum(squares) / float(rp.headDim) + rp.headNormEps);
  }
  bvec2 nan = bvec2(false);
  for (uint pair = gl_LocalInvocationIndex; pair < halfDim; pair += WG_SIZE) {
    uint i0, i1;
    ropePairFeatures(pair, rotaryPairs, rp.rotaryDim, interleaved, i0, i1);
    vec2 x = vec2(float(ROPE_ROW_QKV[from + i0]), float(ROPE_ROW_QKV[from + i1]));
    nan.x = nan.x || any(isnan(x));
    if (norms) {
      const vec2 w = isKey ? vec2(float(ROPE_ROW_K_NORM[i0]), float(ROPE_ROW_K_NORM[i1]))
                           : vec2(float(ROPE_ROW_Q_NORM[i0]), float(ROPE_ROW_Q_NORM[i1]));
      nan.y = nan.y || any(isnan(w));
      x *= scale * w;
    }
    const vec2 r = ropeCosSin(pair, rotaryPairs, position);
    const vec2 y = vec2(x.x * r.x - x.y * r.y, x.y * r.x + x.x * r.y);
    if (isKey) {
      ROPE_ROW_KEYS[to + i0] = TO_ELEM(y.x);
      ROPE_ROW_KEYS[to + i1] = TO_ELEM(y.y);
    } else {
      ROPE_ROW_QKV[to + i0] = TO_ELEM(y.x);
      ROPE_ROW_QKV[to + i1] = TO_ELEM(y.y);
    }
  }
  return nan;
}

// Row (b, l): every invocation of the workgroup calls this, in uniform control flow.
uint ropeAppendRow(RopeAppendParams rp, uint b, uint l) {
  const int position = (rp.flags & ROPE_APPEND_DEVICE_POSITIONS) != 0u
                           ? ROPE_ROW_POSITIONS[b * rp.positionsStrideB + l]
                           : rp.positionOffset + int(l);
  uint cacheRow = l;
  if ((rp.flags & ROPE_APPEND_CACHE_AT_POSITIONS) != 0u) {
    if (position < 0 || position >= int(rp.cacheRows)) return 16u;  // uniform: one row per workgroup
    cacheRow = uint(position);
  }
  uint bits = 0u;
  uint at = rp.qOffset + b * rp.qStrideB + l * rp.qStrideL;
  for (uint h = 0u; h < rp.qHeads; ++h, at += rp.qStrideH) {
    const bvec2 nan = ropeRowHead(rp, position, at, at, false);
    bits |= (nan.x ? 1u : 0u) | (nan.y ? 8u : 0u);
  }
  uint k = rp.kOffset + b * rp.kStrideB + l * rp.kStrideL;
  uint v = rp.vOffset + b * rp.vStrideB + l * rp.vStrideL;
  uint kOut = rp.keysOffset + b * rp.keysStrideB + cacheRow * rp.keysStrideL;
  uint vOut = rp.valuesOffset + b * rp.valuesStrideB + cacheRow * rp.valuesStrideL;
  for (uint h = 0u; h < rp.kvHeads;
       ++h, k += rp.kStrideH, v += rp.vStrideH, kOut += rp.keysStrideH, vOut += rp.valuesStrideH) {
    const bvec2 nan = ropeRowHead(rp, position, k, kOut, true);
    bits |= (nan.x ? 2u : 0u) | (nan.y ? 8u : 0u);
    for (uint i = gl_LocalInvocationIndex; i < rp.headDim; i += WG_SIZE) {
      const float value = float(ROPE_ROW_QKV[v + i]);  // exact for f16 too
      if (isnan(value)) bits |= 4u;
      ROPE_ROW_VALUES[vOut + i] = TO_ELEM(value);
    }
  }
  return bits;
}

#endif
