// Staging of K/V tiles into shared memory for the fragment kernels (attention_coopmat.comp,
// attention_coopmat2.comp): KEY_BLOCK keys per tile, head dims padded with zeros to DKP and DVP, rows
// LDK and LDV elements apart, read with 4-element loads (vec4 or f16vec4 when ALIGNED, else
// scalars). The includer declares the buffers k, v, k4 and v4 (ELEM and ELEM4 views of bindings K
// and V), the shared arrays sK and sV of FRAG_IN (STAGES tiles each), and the constants DKP, DVP,
// LDK and LDV; `p` is the AttentionParams push constant.
#ifndef VKATTN_ATTENTION_KV_STAGE_GLSL
#define VKATTN_ATTENTION_KV_STAGE_GLSL

vec4 loadK4(uint at) {
  return ALIGNED ? vec4(k4[at / 4]) : vec4(float(k[at]), float(k[at + 1]), float(k[at + 2]), float(k[at + 3]));
}
vec4 loadV4(uint at) {
  return ALIGNED ? vec4(v4[at / 4]) : vec4(float(v[at]), float(v[at + 1]), float(v[at + 2]), float(v[at + 3]));
}

// Stages keys j0 .. j0 + KEY_BLOCK - 1 into buffer `stage`: zeros past hi and in the padded columns.
void stageTile(uint kBase, uint vBase, int j0, int hi, uint stage, inout bool nanK, inout bool nanV) {
  const uint DK4P = DKP / 4, DV4P = DVP / 4;
  [[unroll]] for (uint it = 0; it < (KEY_BLOCK * DK4P + WG_SIZE - 1) / WG_SIZE; ++it) {
    const uint s = gl_LocalInvocationID.x + it * WG_SIZE;
    if (s < KEY_BLOCK * DK4P) {
      const uint key = s / DK4P, d = (s % DK4P) * 4;
      const int j = j0 + int(key);
      const vec4 x = j < hi && d < DK ? loadK4(kBase + uint(j) * p.kStrideL + d) : vec4(0.0);
      nanK = nanK || any(isnan(x));
      const uint at = (stage * KEY_BLOCK + key) * LDK + d;
      sK[at] = FRAG_IN(x.x);
      sK[at + 1] = FRAG_IN(x.y);
      sK[at + 2] = FRAG_IN(x.z);
      sK[at + 3] = FRAG_IN(x.w);
    }
  }
  [[unroll]] for (uint it = 0; it < (KEY_BLOCK * DV4P + WG_SIZE - 1) / WG_SIZE; ++it) {
    const uint s = gl_LocalInvocationID.x + it * WG_SIZE;
    if (s < KEY_BLOCK * DV4P) {
      const uint key = s / DV4P, d = (s % DV4P) * 4;
      const int j = j0 + int(key);
      const vec4 x = j < hi && d < DV ? loadV4(vBase + uint(j) * p.vStrideL + d) : vec4(0.0);
      nanV = nanV || any(isnan(x));
      const uint at = (stage * KEY_BLOCK + key) * LDV + d;
      sV[at] = FRAG_IN(x.x);
      sV[at + 1] = FRAG_IN(x.y);
      sV[at + 2] = FRAG_IN(x.z);
      sV[at + 3] = FRAG_IN(x.w);
    }
  }
}

#endif
