// Staging of K/V tiles into shared memory for the fragment kernels (attention_coopmat.comp,
// attention_coopmat2.comp): KEY_BLOCK keys per tile, head dims padded with zeros to DKP and DVP, rows
// LDK and LDV elements apart, read with 4-element loads (vec4 or f16vec4 when ALIGNED, else
// scalars) in the storage type. Double-buffered kernels load the next tile into registers before
// the current tile's math and store it into the other buffer after it, so the global loads'
// latency is hidden behind the math. The includer declares the buffers k, v, k4 and v4 (ELEM and ELEM4 views of bindings K
// and V), the shared arrays sK and sV of FRAG_IN (STAGES tiles each), and the constants DKP, DVP,
// LDK and LDV; `p` is the AttentionParams push constant.
#ifndef VKATTN_ATTENTION_KV_STAGE_GLSL
#define VKATTN_ATTENTION_KV_STAGE_GLSL

// One tile's K and V words of this invocation, held in registers between loadTile and storeTile
// (ELEM4: f16vec4 with f16 storage, so f16 stays f16 from memory to shared memory).
const uint K_WORDS = (KEY_BLOCK * (DKP / 4) + WG_SIZE - 1) / WG_SIZE;
const uint V_WORDS = (KEY_BLOCK * (DVP / 4) + WG_SIZE - 1) / WG_SIZE;
struct TileWords {
  ELEM4 k[K_WORDS];
  ELEM4 v[V_WORDS];
};

ELEM4 loadK4(uint at) { return ALIGNED ? k4[at / 4] : ELEM4(k[at], k[at + 1], k[at + 2], k[at + 3]); }
ELEM4 loadV4(uint at) { return ALIGNED ? v4[at / 4] : ELEM4(v[at], v[at + 1], v[at + 2], v[at + 3]); }

// Reads keys j0 .. j0 + KEY_BLOCK - 1 into registers: zeros past hi and in the padded columns.
void loadTile(uint kBase, uint vBase, int j0, int hi, out TileWords w, inout bool nanK, inout bool nanV) {
  const uint DK4P = DKP / 4, DV4P = DVP / 4;
  [[unroll]] for (uint it = 0; it < K_WORDS; ++it) {
    const uint s = gl_LocalInvocationID.x + it * WG_SIZE;
    const uint key = s / DK4P, d = (s % DK4P) * 4;
    const int j = j0 + int(key);
    w.k[it] = s < KEY_BLOCK * DK4P && j < hi && d < DK ? loadK4(kBase + uint(j) * p.kStrideL + d) : ELEM4(0.0);
    nanK = nanK || any(isnan(w.k[it]));
  }
  [[unroll]] for (uint it = 0; it < V_WORDS; ++it) {
    const uint s = gl_LocalInvocationID.x + it * WG_SIZE;
    const uint key = s / DV4P, d = (s % DV4P) * 4;
    const int j = j0 + int(key);
    w.v[it] = s < KEY_BLOCK * DV4P && j < hi && d < DV ? loadV4(vBase + uint(j) * p.vStrideL + d) : ELEM4(0.0);
    nanV = nanV || any(isnan(w.v[it]));
  }
}

// Writes the words loadTile read into shared-memory buffer `stage`.
void storeTile(TileWords w, uint stage) {
  const uint DK4P = DKP / 4, DV4P = DVP / 4;
  [[unroll]] for (uint it = 0; it < K_WORDS; ++it) {
    const uint s = gl_LocalInvocationID.x + it * WG_SIZE;
    if (s < KEY_BLOCK * DK4P) {
      const uint at = (stage * KEY_BLOCK + s / DK4P) * LDK + (s % DK4P) * 4;
      sK[at] = FRAG_IN(w.k[it].x);
      sK[at + 1] = FRAG_IN(w.k[it].y);
      sK[at + 2] = FRAG_IN(w.k[it].z);
      sK[at + 3] = FRAG_IN(w.k[it].w);
    }
  }
  [[unroll]] for (uint it = 0; it < V_WORDS; ++it) {
    const uint s = gl_LocalInvocationID.x + it * WG_SIZE;
    if (s < KEY_BLOCK * DV4P) {
      const uint at = (stage * KEY_BLOCK + s / DV4P) * LDV + (s % DV4P) * 4;
      sV[at] = FRAG_IN(w.v[it].x);
      sV[at + 1] = FRAG_IN(w.v[it].y);
      sV[at + 2] = FRAG_IN(w.v[it].z);
      sV[at + 3] = FRAG_IN(w.v[it].w);
    }
  }
}

// loadTile then storeTile: a tile staged with nothing to overlap.
void stageTile(uint kBase, uint vBase, int j0, int hi, uint stage, inout bool nanK, inout bool nanV) {
  TileWords w;
  loadTile(kBase, vBase, j0, hi, w, nanK, nanV);
  storeTile(w, stage);
}

#endif
