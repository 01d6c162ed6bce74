#version 450
// Matrix product on FM x FN x FK matrix fragments (fragment.glsl: VK_KHR_cooperative_matrix at the
// device's shape, VK_NV_cooperative_matrix at 16 x 16 x 16, or the plain-GLSL emulation with
// FRAG_EMULATED), fp32 accumulation: c = act(alpha a B + bias) + residual (see matmul_common.glsl).
// A workgroup is 2 x 2 subgroups and owns a TILE_M x TILE_N tile of c (2 FM FRAGS x 2 FN FRAGS);
// each subgroup owns a quadrant of FRAGS x FRAGS accumulator fragments that stay in registers for
// the whole K loop. K advances BK (a multiple of FK) at a time: the workgroup stages a TILE_M x BK
// slice of a ([m][k]) and a TILE_N x BK slice of B ([n][k], read column-major; or [k][n] when
// B_KN, read row-major) in shared memory, in words (16 bytes: 4 f32, or 8 f16 in the KHR build;
// 4 f16 otherwise) loaded without a branch (slices on the edges read clamped places and store zeros
// past M, N, K, so any shape works); rows are padded by 16 bytes. STAGES = 2 double-buffers the slices (one barrier per slice:
// the next slice's global loads go into registers before this slice's products, and into the other
// buffer after them). The epilogue goes one fragment at a
// time through an FM x FN shared block per subgroup to the common output code (bias, activation,
// residual, NaN report). Shared memory: shared_layout.h (MATMUL_COOPMAT_*).
// Bindings, push constants, spec constants 0-1, 4-5: matmul_common.glsl (ALIGNED_B here covers B
// in either layout); 7 FRAGS, 8 BK, 9 STAGES, and FRAG_SPEC_M/N/K in the KHR build. Dispatch: as
// matmul_tiled.comp with TILE_M x TILE_N tiles.
// Tolerance: as matmul_rows.comp (f16: fp32 accumulation; the emulated f32 build is fp32
// throughout). The expected performance on GPUs is in the README's Design section.
#extension GL_KHR_shader_subgroup_basic : require
#include "common.glsl"
#include "kernel_interface.h"
#include "push_constants.h"
#include "shared_layout.h"

#ifdef STORAGE_F16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define FRAG_IN float16_t
const uint PAD = 8;  // 16 bytes of f16
#else
#define FRAG_IN float
const uint PAD = 4;
#endif

layout(push_constant) uniform Push { MatmulParams p; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A { ELEM a[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B { ELEM b[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A4 { ELEM4 a4[]; };  // same data, when aligned
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B4 { ELEM4 b4[]; };
layout(std430, set = 0, binding = MATMUL_BINDING_A) readonly buffer A2 { uvec2 a2[]; };  // 4 halves, when aligned (f16)
layout(std430, set = 0, binding = MATMUL_BINDING_B) readonly buffer B2 { uvec2 b2[]; };
#include "matmul_common.glsl"

layout(constant_id = MATMUL_SPEC_FRAGS) const uint FRAGS = 2;  // a subgroup's quadrant is FRAGS x FRAGS fragments
layout(constant_id = MATMUL_SPEC_BK) const uint BK = 32;   // K per staged slice, a multiple of FK
layout(constant_id = MATMUL_SPEC_STAGES) const uint STAGES = 2;

#include "fragment.glsl"

const uint TILE_M = 2 * FM * FRAGS, TILE_N = 2 * FN * FRAGS;
const uint LDA = MATMUL_COOPMAT_LD_SLICE(BK, PAD);                   // sA [m][k], and sB [n][k]
const uint LDB = B_KN ? TILE_N + PAD : MATMUL_COOPMAT_LD_SLICE(BK, PAD);  // sB [k][n] when B_KN
const uint SLICE_B = B_KN ? BK * LDB : TILE_N * LDB;
const uint LDE = MATMUL_COOPMAT_LD_E(FN);                            // epilogue block row stride (floats)
// A slice moves in words of WORD_ELEMS elements. f16 slices of the KHR build move in 16-byte words
// of 8 halves (uvec4: two 8-byte loads where rows are aligned, one 16-byte shared store), and sA and
// sB are uvec4 arrays that the matrix loads read with offsets and strides in words (SHARED_INDEX;
// LDA, LDB, the slices and the fragment offsets are multiples of 8 halves). Otherwise a word is 4
// elements (ELEM4) stored element by element into arrays of FRAG_IN.
#if defined(STORAGE_F16) && defined(FRAG_KHR)
#define SLICE_WORDS
const uint WORD_ELEMS = 8;
#define SLICE_WORD uvec4
#define SHARED_INDEX(x) ((x) / 8u)
shared uvec4 sA[STAGES * TILE_M * LDA / 8];
shared uvec4 sB[STAGES * SLICE_B / 8];
#else
const uint WORD_ELEMS = 4;
#define SLICE_WORD ELEM4
#define SHARED_INDEX(x) (x)
shared FRAG_IN sA[STAGES * TILE_M * LDA];
shared FRAG_IN sB[STAGES * SLICE_B];
#endif
shared float sE[4 * FM * LDE];

void subgroupSync() {
  subgroupMemoryBarrierShared();
  subgroupBarrier();
}

// A slice goes to shared memory in two steps: its global loads into registers (loadSlice), and
// those registers into a stage's buffer (storeSlice); or in one (stageSlice). With
// SLICE_IN_REGISTERS the workgroup multiplies the slice staged before between the two steps, so
// the loads' latency hides behind the products instead of stalling each store that needs its
// load; with one stage, the next slice waits in registers while the products read the only buffer.
// Each invocation holds SLICE_A_LOADS + SLICE_B_LOADS words of four elements (8 + 8 registers at
// 64 x 64 x 32 f16 on 128 invocations). At FRAGS = 4 the 16 accumulator fragments fill the
// register file (AMD's compiler: 256 VGPRs on RDNA3), and holding a slice as well spilled 29 of
// them, so there each word is stored as it loads.
const bool SLICE_IN_REGISTERS = FRAGS <= 2;
const uint SLICE_A_LOADS = (TILE_M * BK / WORD_ELEMS + WG_SIZE - 1) / WG_SIZE;
const uint SLICE_B_LOADS = (TILE_N * BK / WORD_ELEMS + WG_SIZE - 1) / WG_SIZE;
SLICE_WORD sliceA[SLICE_A_LOADS];
SLICE_WORD sliceB[SLICE_B_LOADS];

// Where load `it` of this invocation sits in the A slice: its row and first column (k), or an
// index past the slice.
uvec2 sliceAPlace(uint it) {
  const uint s = gl_LocalInvocationID.x + it * WG_SIZE;
  return uvec2(s / (BK / WORD_ELEMS), (s % (BK / WORD_ELEMS)) * WORD_ELEMS);
}
// The same in the B slice as stored: row k and columns n.. when B_KN, else row n and columns k...
uvec2 sliceBPlace(uint it) {
  const uint s = gl_LocalInvocationID.x + it * WG_SIZE;
  return B_KN ? uvec2(s / (TILE_N / WORD_ELEMS), (s % (TILE_N / WORD_ELEMS)) * WORD_ELEMS)
              : uvec2(s / (BK / WORD_ELEMS), (s % (BK / WORD_ELEMS)) * WORD_ELEMS);
}
// (Constant where the slice divides evenly among the invocations, so no branch guards the word.)
bool sliceAHas(uint it) {
  const uint words = TILE_M * BK / WORD_ELEMS;
  return (it + 1) * WG_SIZE <= words || gl_LocalInvocationID.x + it * WG_SIZE < words;
}
bool sliceBHas(uint it) {
  const uint words = TILE_N * BK / WORD_ELEMS;
  return (it + 1) * WG_SIZE <= words || gl_LocalInvocationID.x + it * WG_SIZE < words;
}

// A word's loads never branch, so a slice's loads are all in flight together and the first store
// waits for them once. A slice wholly inside a and B (every slice but those on the last rows,
// columns and K; the kernel branches once per slice, uniformly) reads its words as they lie:
// 8-byte loads where rows are aligned. A slice on an edge reads each element from a clamped place
// (row and column at most the last) and the stores zero the elements past M, N and K.
bool sliceInside(uint m0, uint n0, uint k0) {
  return m0 + TILE_M <= p.m && n0 + TILE_N <= p.n && k0 + BK <= p.k;
}
// Element (row, col) of B as stored (rows of [N, K], or of [K, N] when B_KN).
uint bStoredIndex(uint bt, uint row, uint col) { return p.bOffset + bt * p.bStrideB + row * p.bStrideRow + col; }
#ifdef SLICE_WORDS
uint packHalves(ELEM x, ELEM y) { return packHalf2x16(vec2(float(x), float(y))); }
#define WORD_OF(arr, i0, i1, i2, i3, i4, i5, i6, i7)                                             \
  uvec4(packHalves(arr[i0], arr[i1]), packHalves(arr[i2], arr[i3]), packHalves(arr[i4], arr[i5]), \
        packHalves(arr[i6], arr[i7]))
// Eight consecutive halves from element `at`.
uvec4 wordA(uint at) { return ALIGNED_A ? uvec4(a2[at / 4], a2[at / 4 + 1]) : WORD_OF(a, at, at + 1, at + 2, at + 3, at + 4, at + 5, at + 6, at + 7); }
uvec4 wordB(uint at) { return ALIGNED_B ? uvec4(b2[at / 4], b2[at / 4 + 1]) : WORD_OF(b, at, at + 1, at + 2, at + 3, at + 4, at + 5, at + 6, at + 7); }
// Elements col .. col + 7 of the row starting at element `row`, each column clamped to the last.
#define CLAMPED_WORD(arr, row, col, cols)                                                                      \
  WORD_OF(arr, row + min(col, cols - 1u), row + min(col + 1u, cols - 1u), row + min(col + 2u, cols - 1u),      \
          row + min(col + 3u, cols - 1u), row + min(col + 4u, cols - 1u), row + min(col + 5u, cols - 1u),      \
          row + min(col + 6u, cols - 1u), row + min(col + 7u, cols - 1u))
uvec4 clampedWordA(uint row, uint col) { return CLAMPED_WORD(a, row, col, p.k); }
uvec4 clampedWordB(uint row, uint col, uint cols) { return CLAMPED_WORD(b, row, col, cols); }
// The word with its elements outside the matrix (rows x cols, the stored layout) zeroed.
// (Arithmetic, no branch: a branch here would let the compiler sink the word's load into it.)
uvec4 insideOnly(uvec4 w, uint row, uint col, uint rows, uint cols) {
  const uvec4 even = uvec4(col) + uvec4(0, 2, 4, 6);
  const uvec4 keep = uvec4(lessThan(even, uvec4(cols))) * 0xffffu | uvec4(lessThan(even + 1u, uvec4(cols))) * 0xffff0000u;
  return w & keep * uint(row < rows);
}
#else
// Four consecutive elements from element `at` (4-element loads where rows are aligned).
ELEM4 wordA(uint at) { return ALIGNED_A ? a4[at / 4] : ELEM4(a[at], a[at + 1], a[at + 2], a[at + 3]); }
ELEM4 wordB(uint at) { return ALIGNED_B ? b4[at / 4] : ELEM4(b[at], b[at + 1], b[at + 2], b[at + 3]); }
ELEM4 clampedWordA(uint row, uint col) {
  const uvec4 c = min(uvec4(col) + uvec4(0, 1, 2, 3), uvec4(p.k - 1u));
  return ELEM4(a[row + c.x], a[row + c.y], a[row + c.z], a[row + c.w]);
}
ELEM4 clampedWordB(uint row, uint col, uint cols) {
  const uvec4 c = min(uvec4(col) + uvec4(0, 1, 2, 3), uvec4(cols - 1u));
  return ELEM4(b[row + c.x], b[row + c.y], b[row + c.z], b[row + c.w]);
}
ELEM4 insideOnly(ELEM4 w, uint row, uint col, uint rows, uint cols) {
  return mix(ELEM4(0.0), w, row < rows ? lessThan(uvec4(col) + uvec4(0, 1, 2, 3), uvec4(cols)) : bvec4(false));
}
#endif

// Word `it` of this invocation's share of the A and the B slice at (m0, n0, k0) (`inside`: the
// slice lies wholly inside a and B), and where it goes in a stage's buffer, zeros outside the
// matrix.
SLICE_WORD loadSliceA(uint it, uint bt, uint m0, uint k0, bool inside) {
  const uvec2 rc = sliceAPlace(it);
  if (inside) return wordA(aIndex(bt, m0 + rc.x, k0 + rc.y));
  return clampedWordA(aIndex(bt, min(m0 + rc.x, p.m - 1u), 0u), k0 + rc.y);
}
uvec4 sliceBExtent(uint n0, uint k0, uint it) {  // (row, col, rows, cols) of word it in B's stored layout
  const uvec2 rc = sliceBPlace(it);
  return B_KN ? uvec4(k0 + rc.x, n0 + rc.y, p.k, p.n) : uvec4(n0 + rc.x, k0 + rc.y, p.n, p.k);
}
SLICE_WORD loadSliceB(uint it, uint bt, uint n0, uint k0, bool inside) {
  const uvec4 e = sliceBExtent(n0, k0, it);
  if (inside) return wordB(bStoredIndex(bt, e.x, e.y));
  return clampedWordB(bStoredIndex(bt, min(e.x, e.z - 1u), 0u), e.y, e.w);
}
void storeSliceA(uint it, uint stage, SLICE_WORD x, uint m0, uint k0) {
  const uvec2 rc = sliceAPlace(it);
  const uint at = (stage * TILE_M + rc.x) * LDA + rc.y;
  if (!sliceAHas(it)) return;
  x = insideOnly(x, m0 + rc.x, k0 + rc.y, p.m, p.k);
#ifdef SLICE_WORDS
  sA[at / 8] = x;
#else
  [[unroll]] for (uint i = 0; i < 4; ++i) sA[at + i] = x[i];
#endif
}
void storeSliceB(uint it, uint stage, SLICE_WORD x, uint n0, uint k0) {
  const uvec2 rc = sliceBPlace(it);
  const uint at = stage * SLICE_B + rc.x * LDB + rc.y;
  if (!sliceBHas(it)) return;
  const uvec4 e = sliceBExtent(n0, k0, it);
  x = insideOnly(x, e.x, e.y, e.z, e.w);
#ifdef SLICE_WORDS
  sB[at / 8] = x;
#else
  [[unroll]] for (uint i = 0; i < 4; ++i) sB[at + i] = x[i];
#endif
}

// With SLICE_IN_REGISTERS: the slice's global loads into sliceA and sliceB, then those into a
// stage's buffer. Without: each word stored as it loads.
void loadSlice(uint bt, uint m0, uint n0, uint k0, bool inside) {
  [[unroll]] for (uint it = 0; it < SLICE_A_LOADS; ++it) sliceA[it] = loadSliceA(it, bt, m0, k0, inside);
  [[unroll]] for (uint it = 0; it < SLICE_B_LOADS; ++it) sliceB[it] = loadSliceB(it, bt, n0, k0, inside);
}
void loadSlice(uint bt, uint m0, uint n0, uint k0) {
  if (sliceInside(m0, n0, k0)) loadSlice(bt, m0, n0, k0, true);
  else loadSlice(bt, m0, n0, k0, false);
}
void storeSlice(uint stage, uint m0, uint n0, uint k0) {
  [[unroll]] for (uint it = 0; it < SLICE_A_LOADS; ++it) storeSliceA(it, stage, sliceA[it], m0, k0);
  [[unroll]] for (uint it = 0; it < SLICE_B_LOADS; ++it) storeSliceB(it, stage, sliceB[it], n0, k0);
}
void stageSlice(uint bt, uint m0, uint n0, uint k0, uint stage, bool inside) {
  [[unroll]] for (uint it = 0; it < SLICE_A_LOADS; ++it)
    storeSliceA(it, stage, loadSliceA(it, bt, m0, k0, inside), m0, k0);
  [[unroll]] for (uint it = 0; it < SLICE_B_LOADS; ++it)
    storeSliceB(it, stage, loadSliceB(it, bt, n0, k0, inside), n0, k0);
}
void stageSlice(uint bt, uint m0, uint n0, uint k0, uint stage) {
  if (sliceInside(m0, n0, k0)) stageSlice(bt, m0, n0, k0, stage, true);
  else stageSlice(bt, m0, n0, k0, stage, false);
}

void main() {
  const uint tiles = p.tilesM * p.tilesN;
  const uint group = flatGroupIndex();
  // Uniform per workgroup, so the early return keeps every barrier in uniform control flow.
  if (group >= p.batch * tiles) return;
  const uint bt = group / tiles;
  const uint m0 = ((group % tiles) / p.tilesN) * TILE_M;
  const uint n0 = (group % p.tilesN) * TILE_N;
  const uint qm = (gl_SubgroupID / 2) * FM * FRAGS, qn = (gl_SubgroupID % 2) * FN * FRAGS;

  FragAcc acc[FRAGS * FRAGS];
  FRAG_LOOP for (uint f = 0; f < FRAGS * FRAGS; ++f) acc[f] = fragFill(0.0);

  const uint slices = (p.k + BK - 1) / BK;
  if (SLICE_IN_REGISTERS && slices > 0) loadSlice(bt, m0, n0, 0);
  if (STAGES == 2) {
    if (slices > 0) {
      if (SLICE_IN_REGISTERS) storeSlice(0, m0, n0, 0);
      else stageSlice(bt, m0, n0, 0, 0);
    }
    barrier();  // the first slice is staged (double-buffered) before anyone reads it
  }
  for (uint t = 0; t < slices; ++t) {
    uint stage = 0;
    const bool more = t + 1 < slices;
    if (STAGES == 1) {
      if (t > 0) barrier();  // every read of the previous slice is done before it is overwritten
      if (SLICE_IN_REGISTERS) storeSlice(0, m0, n0, t * BK);
      else stageSlice(bt, m0, n0, t * BK, 0);
      barrier();  // the slice is staged
    } else {
      stage = t & 1u;
    }
    // The next slice: into registers, in flight during the products (stored after them, or at the
    // next slice's start with one stage); or, not held, straight into the other buffer, which was
    // last read in slice t - 1 and closed by the barrier ending it.
    if (more && SLICE_IN_REGISTERS) loadSlice(bt, m0, n0, (t + 1) * BK);
    if (more && !SLICE_IN_REGISTERS && STAGES == 2) stageSlice(bt, m0, n0, (t + 1) * BK, stage ^ 1u);
    FRAG_LOOP for (uint kk = 0; kk < BK; kk += FK) {
      FragA fa[FRAGS];
      FragB fb[FRAGS];
      FRAG_LOOP for (uint i = 0; i < FRAGS; ++i)
        FRAG_LOAD_A(fa[i], sA, SHARED_INDEX((stage * TILE_M + qm + FM * i) * LDA + kk), SHARED_INDEX(LDA), false);
      FRAG_LOOP for (uint j = 0; j < FRAGS; ++j) {
        if (B_KN) {  // B(k, n) = sB[k][n]
          FRAG_LOAD_B(fb[j], sB, SHARED_INDEX(stage * SLICE_B + kk * LDB + qn + FN * j), SHARED_INDEX(LDB), false);
        } else {     // B(k, n) = sB[n][k]
          FRAG_LOAD_B(fb[j], sB, SHARED_INDEX(stage * SLICE_B + (qn + FN * j) * LDB + kk), SHARED_INDEX(LDB), true);
        }
      }
      FRAG_LOOP for (uint i = 0; i < FRAGS; ++i)
        FRAG_LOOP for (uint j = 0; j < FRAGS; ++j) acc[i * FRAGS + j] = fragMulAdd(fa[i], fb[j], acc[i * FRAGS + j]);
    }
    if (STAGES == 2) {
      if (more && SLICE_IN_REGISTERS) storeSlice(stage ^ 1u, m0, n0, (t + 1) * BK);
      barrier();  // slice t + 1 is staged and slice t's buffer is free again
    }
  }

  uint bits = 0u;
  bool pending = false;
  uint nanM = 0u, nanN = 0u;
  const uint block = gl_SubgroupID * FM * LDE;
  // Rolled on purpose (its body is large): acc rotates so that fragment f is acc[0] in turn. Every
  // index into acc stays a constant once the inner loops unroll, so the accumulators live in
  // registers; an index that varies would move the whole array to scratch memory (AMD's compiler
  // did that, reloading and storing it around every K slice).
  [[dont_unroll]] for (uint f = 0; f < FRAGS * FRAGS; ++f) {
    FRAG_STORE_ACC(acc[0], sE, block, LDE);
    FRAG_LOOP for (uint g = 0; g + 1 < FRAGS * FRAGS; ++g) acc[g] = acc[g + 1];
    subgroupSync();  // the fragment is in shared memory
    for (uint x = gl_SubgroupInvocationID; x < FM * FN; x += gl_SubgroupSize) {
      const uint m = m0 + qm + FM * (f / FRAGS) + x / FN, n = n0 + qn + FN * (f % FRAGS) + x % FN;
      if (m < p.m && n < p.n && storeOutput(bt, m, n, sE[block + (x / FN) * LDE + x % FN], bits) && !pending) {
        pending = true;
        nanM = m;
        nanN = n;
      }
    }
    subgroupSync();  // read before the next fragment overwrites the block
  }
  if (pending) bits |= blameNan(bt, nanM, nanN);
  if (bits != 0u) atomicOr(status[p.statusSlot], bits);
}
