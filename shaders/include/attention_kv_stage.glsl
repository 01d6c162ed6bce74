// Staging of K/V tiles into shared memory for the fragment kernels (attention_coopmat.comp,
// attention_coopmat2.comp): KEY_BLOCK keys per tile, head dims padded with zeros to DKP and DVP, rows
// LDK and LDV elements apart, read in words (below) in the storage type. Double-buffered kernels
// load the next tile into registers before the current tile's math and store it into the other
// buffer after it, so the global loads' latency is hidden behind the math. The includer declares
// the buffers k, v, k4 and v4 (ELEM and ELEM4 views of bindings K and V; with STAGE_WORDS also k2
// and v2, uvec2 views), the shared arrays sK and sV (STAGES tiles each; FRAG_IN, or uvec4 with
// STAGE_WORDS, where DKP, DVP, LDK and LDV are multiples of 8), and the constants DKP, DVP, LDK and
// LDV; `p` is the AttentionParams push constant. An includer that keeps K and V in one array of
// words defines both names as that array and STAGE_V_BASE as the element where V's tiles begin
// (a multiple of STAGE_ELEMS; STAGE_WORDS only). An includer that may stage V transposed defines
// STAGE_VT as a FRAG_IN array of STAGES x DVP rows LDVT apart, and the constant V_TRANSPOSED.
#ifndef VKATTN_ATTENTION_KV_STAGE_GLSL
#define VKATTN_ATTENTION_KV_STAGE_GLSL

// A tile moves in words of STAGE_ELEMS elements. With STAGE_WORDS (f16 tiles of the KHR and
// cooperative-matrix-2 builds) a word is 16 bytes, 8 halves in a uvec4, read as two 8-byte uvec2
// loads (k2, v2: uvec2 views of K and V, when ALIGNED) or packed from scalars, and stored into
// shared memory with one 16-byte store; sK and sV are then uvec4 arrays, which the matrix loads
// read with offsets and strides in words (STAGE_INDEX). Otherwise a word is 4 elements (ELEM4:
// f16vec4 with f16 storage, so f16 stays f16 from memory to shared memory) stored element by
// element into arrays of FRAG_IN.
#ifdef STAGE_WORDS
const uint STAGE_ELEMS = 8;
#define STAGE_WORD uvec4
#define STAGE_INDEX(x) ((x) / 8u)
#else
const uint STAGE_ELEMS = 4;
#define STAGE_WORD ELEM4
#define STAGE_INDEX(x) (x)
#endif
const uint K_WORDS = (KEY_BLOCK * (DKP / STAGE_ELEMS) + WG_SIZE - 1) / WG_SIZE;
const uint V_WORDS = (KEY_BLOCK * (DVP / STAGE_ELEMS) + WG_SIZE - 1) / WG_SIZE;
// One tile's K and V words of this invocation, held in registers between loadTile and storeTile,
// and whether each lies inside the tile (a word outside it is stored as zeros).
struct TileWords {
  STAGE_WORD k[K_WORDS];
  STAGE_WORD v[V_WORDS];
  bool kInside[K_WORDS];
  bool vInside[V_WORDS];
};

#ifdef STAGE_WORDS
uint packHalves(ELEM a, ELEM b) { return packHalf2x16(vec2(float(a), float(b))); }
uvec4 loadKWord(uint at) {
  if (ALIGNED) return uvec4(k2[at / 4], k2[at / 4 + 1]);
  return uvec4(packHalves(k[at], k[at + 1]), packHalves(k[at + 2], k[at + 3]), packHalves(k[at + 4], k[at + 5]),
               packHalves(k[at + 6], k[at + 7]));
}
uvec4 loadVWord(uint at) {
  if (ALIGNED) return uvec4(v2[at / 4], v2[at / 4 + 1]);
  return uvec4(packHalves(v[at], v[at + 1]), packHalves(v[at + 2], v[at + 3]), packHalves(v[at + 4], v[at + 5]),
               packHalves(v[at + 6], v[at + 7]));
}
float wordElement(uvec4 w, uint e) { return unpackHalf2x16(w[e / 2u])[e % 2u]; }
bool wordHasNaN(uvec4 w) {
  return any(isnan(unpackHalf2x16(w.x))) || any(isnan(unpackHalf2x16(w.y))) || any(isnan(unpackHalf2x16(w.z))) ||
         any(isnan(unpackHalf2x16(w.w)));
}
#else
ELEM4 loadKWord(uint at) { return ALIGNED ? k4[at / 4] : ELEM4(k[at], k[at + 1], k[at + 2], k[at + 3]); }
ELEM4 loadVWord(uint at) { return ALIGNED ? v4[at / 4] : ELEM4(v[at], v[at + 1], v[at + 2], v[at + 3]); }
float wordElement(ELEM4 w, uint e) { return float(w[e]); }
bool wordHasNaN(ELEM4 w) { return any(isnan(w)); }
#endif

// Reads keys j0 .. j0 + KEY_BLOCK - 1 (j0 < hi) into registers. Every word is loaded, one outside
// the tile (past hi, in the padded columns) from the tile's first key instead: an address always in
// bounds, so the loads issue without branches and nothing waits for them before storeTile, which
// zeros the words outside and tests for NaN after the tile's products.
void loadTile(uint kBase, uint vBase, int j0, int hi, out TileWords w) {
  const uint DKW = DKP / STAGE_ELEMS, DVW = DVP / STAGE_ELEMS;
  [[unroll]] for (uint it = 0; it < K_WORDS; ++it) {
    const uint s = gl_LocalInvocationID.x + it * WG_SIZE;
    const uint key = s / DKW, d = (s % DKW) * STAGE_ELEMS;
    const int j = j0 + int(key);
    w.kInside[it] = s < KEY_BLOCK * DKW && j < hi && d < DK;
    w.k[it] = loadKWord(w.kInside[it] ? kBase + uint(j) * p.kStrideL + d : kBase + uint(j0) * p.kStrideL);
  }
  [[unroll]] for (uint it = 0; it < V_WORDS; ++it) {
    const uint s = gl_LocalInvocationID.x + it * WG_SIZE;
    const uint key = s / DVW, d = (s % DVW) * STAGE_ELEMS;
    const int j = j0 + int(key);
    w.vInside[it] = s < KEY_BLOCK * DVW && j < hi && d < DV;
    w.v[it] = loadVWord(w.vInside[it] ? vBase + uint(j) * p.vStrideL + d : vBase + uint(j0) * p.vStrideL);
  }
}

// Writes the words loadTile read into shared-memory buffer `stage`, zeros for those outside the
// tile, and notes a NaN among the others.
void storeTile(TileWords w, uint stage, inout bool nanK, inout bool nanV) {
  const uint DKW = DKP / STAGE_ELEMS, DVW = DVP / STAGE_ELEMS;
  [[unroll]] for (uint it = 0; it < K_WORDS; ++it) {
    const uint s = gl_LocalInvocationID.x + it * WG_SIZE;
    const STAGE_WORD x = w.kInside[it] ? w.k[it] : STAGE_WORD(0);
    nanK = nanK || wordHasNaN(x);
    if (s < KEY_BLOCK * DKW) {
      const uint at = (stage * KEY_BLOCK + s / DKW) * LDK + (s % DKW) * STAGE_ELEMS;
#ifdef STAGE_WORDS
      sK[at / STAGE_ELEMS] = x;
#else
      sK[at] = FRAG_IN(x.x);
      sK[at + 1] = FRAG_IN(x.y);
      sK[at + 2] = FRAG_IN(x.z);
      sK[at + 3] = FRAG_IN(x.w);
#endif
    }
  }
  [[unroll]] for (uint it = 0; it < V_WORDS; ++it) {
    const uint s = gl_LocalInvocationID.x + it * WG_SIZE;
    const STAGE_WORD x = w.vInside[it] ? w.v[it] : STAGE_WORD(0);
    nanV = nanV || wordHasNaN(x);
#ifdef STAGE_VT
    if (V_TRANSPOSED != 0u) {  // the word's elements go down one column: feature d + e, key s / DVW
      if (s < KEY_BLOCK * DVW) {
        const uint at = (stage * DVP + (s % DVW) * STAGE_ELEMS) * LDVT + s / DVW;
        [[unroll]] for (uint e = 0; e < STAGE_ELEMS; ++e) STAGE_VT[at + e * LDVT] = FRAG_IN(wordElement(x, e));
      }
      continue;
    }
#endif
    if (s < KEY_BLOCK * DVW) {
      const uint at = (stage * KEY_BLOCK + s / DVW) * LDV + (s % DVW) * STAGE_ELEMS;
#ifdef STAGE_WORDS
#ifdef STAGE_V_BASE
      sV[(STAGE_V_BASE + at) / STAGE_ELEMS] = x;
#else
      sV[at / STAGE_ELEMS] = x;
#endif
#else
      sV[at] = FRAG_IN(x.x);
      sV[at + 1] = FRAG_IN(x.y);
      sV[at + 2] = FRAG_IN(x.z);
      sV[at + 3] = FRAG_IN(x.w);
#endif
    }
  }
}

// loadTile then storeTile: a tile staged with nothing to overlap.
void stageTile(uint kBase, uint vBase, int j0, int hi, uint stage, inout bool nanK, inout bool nanV) {
  TileWords w;
  loadTile(kBase, vBase, j0, hi, w);
  storeTile(w, stage, nanK, nanV);
}

#endif
