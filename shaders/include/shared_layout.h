// Shared-memory layouts of the fragment kernels, included by their GLSL (which declares its arrays
// with these row strides) and by the runtime (which sizes tiles to the device's
// maxComputeSharedMemorySize with the byte counts): one formula for both. Strides are in elements;
// PAD is 16 bytes of the staged element type, so fragment rows start 16-byte aligned.
#ifndef VKATTN_SHARED_LAYOUT_H
#define VKATTN_SHARED_LAYOUT_H

// attention_coopmat.comp: K and V tiles (STAGES x KEYS rows of DKP or DVP, head dims padded to the
// fragment shape), S in fp32 (FM x ROWS rows of KEYS, plus a row's rescale factor and final scale)
// and P in the staged type (FM x ROWS rows of KEYS); with SHARED_Q (1) Q too (FM x ROWS rows of
// DKP, the staged type), else a placeholder of PAD elements. V's tiles are KEYS rows of DVP, or
// with V_TRANSPOSED (1) DVP rows of KEYS per stage; the layout not used keeps PAD elements.
// The register softmax (SOFTMAX: ATTN_SOFTMAX_* of kernel_interface.h) keeps S in its fragments,
// so S's place holds one FM x FN table of element codes instead; with P in registers too, P's
// rows shrink to the FK columns that stage Q's blocks. REG_S and REG_P are 0 or 1 (GLSL computes
// them from a specialization constant, so without ?:).
#define ATTN_COOPMAT_REG_S(SOFTMAX) (((SOFTMAX) + 1u) / 2u)
#define ATTN_COOPMAT_REG_P(SOFTMAX) ((SOFTMAX) / 2u)
#define ATTN_COOPMAT_LD_KV(DP, PAD) ((DP) + (PAD))
#define ATTN_COOPMAT_LD_S(KEYS) ((KEYS) + 4)
#define ATTN_COOPMAT_LD_P(KEYS, PAD) ((KEYS) + (PAD))
#define ATTN_COOPMAT_LD_Q(DKP, PAD) ((DKP) + (PAD))
#define ATTN_COOPMAT_LD_VT(KEYS, PAD) ((KEYS) + (PAD))
#define ATTN_COOPMAT_P_COLS(REG_P, KEYS, FK) ((REG_P) * (FK) + (1u - (REG_P)) * (KEYS))
#define ATTN_COOPMAT_S_FLOATS(REG_S, FM, FN, ROWS, KEYS) \
  ((REG_S) * (FM) * (FN) + (1u - (REG_S)) * (FM) * (ROWS) * ATTN_COOPMAT_LD_S(KEYS))
#define ATTN_COOPMAT_V_ELEMS(STAGES, KEYS, DVP, PAD, V_TRANSPOSED)                                            \
  ((V_TRANSPOSED) ? (STAGES) * (DVP) * ATTN_COOPMAT_LD_VT(KEYS, PAD) + (PAD)                                  \
                  : (STAGES) * (KEYS) * ATTN_COOPMAT_LD_KV(DVP, PAD) + (PAD))
#define ATTN_COOPMAT_SHARED_BYTES(STAGES, KEYS, DKP, DVP, PAD, ELEM_BYTES, FM, FN, FK, ROWS, SHARED_Q, V_TRANSPOSED, \
                                  SOFTMAX)                                                                        \
  ((STAGES) * (KEYS) * ATTN_COOPMAT_LD_KV(DKP, PAD) * (ELEM_BYTES) +                                               \
   ATTN_COOPMAT_V_ELEMS(STAGES, KEYS, DVP, PAD, V_TRANSPOSED) * (ELEM_BYTES) +                                     \
   ATTN_COOPMAT_S_FLOATS(ATTN_COOPMAT_REG_S(SOFTMAX), FM, FN, ROWS, KEYS) * 4 +                                     \
   (FM) * (ROWS) * ATTN_COOPMAT_LD_P(ATTN_COOPMAT_P_COLS(ATTN_COOPMAT_REG_P(SOFTMAX), KEYS, FK), PAD) * (ELEM_BYTES) + \
   ((SHARED_Q) * (FM) * (ROWS) * ATTN_COOPMAT_LD_Q(DKP, PAD) + (PAD)) * (ELEM_BYTES))

// attention_coopmat2.comp: K and V tiles as above (head dims padded to the flexible granularity),
// and one fp32 block of FM x ROWS rows that stages Q before the key loop and the output after it.
// The block lies over the K/V tiles, which are idle then: the kernel needs the larger of the two.
#define ATTN_COOPMAT2_LD_O(DKP, DVP) (((DKP) > (DVP) ? (DKP) : (DVP)) + 4)
#define ATTN_COOPMAT2_KV_BYTES(STAGES, KEYS, DKP, DVP, PAD, ELEM_BYTES)                                         \
  ((STAGES) * (KEYS) * (ATTN_COOPMAT_LD_KV(DKP, PAD) + ATTN_COOPMAT_LD_KV(DVP, PAD)) * (ELEM_BYTES))
#define ATTN_COOPMAT2_O_BYTES(DKP, DVP, FM, ROWS) ((FM) * (ROWS) * ATTN_COOPMAT2_LD_O(DKP, DVP) * 4)
#define ATTN_COOPMAT2_SHARED_BYTES(STAGES, KEYS, DKP, DVP, PAD, ELEM_BYTES, FM, ROWS)                        \
  (ATTN_COOPMAT2_KV_BYTES(STAGES, KEYS, DKP, DVP, PAD, ELEM_BYTES) > ATTN_COOPMAT2_O_BYTES(DKP, DVP, FM, ROWS)  \
       ? ATTN_COOPMAT2_KV_BYTES(STAGES, KEYS, DKP, DVP, PAD, ELEM_BYTES)                                       \
       : ATTN_COOPMAT2_O_BYTES(DKP, DVP, FM, ROWS))

// matmul_coopmat.comp: slices of a (TILE_M rows of BK) and B (TILE_N rows of BK, or BK rows of
// TILE_N when B is [K, N]) per stage, and one FM x FN epilogue block per subgroup (4 subgroups).
#define MATMUL_COOPMAT_LD_SLICE(BK, PAD) ((BK) + (PAD))
#define MATMUL_COOPMAT_LD_E(FN) ((FN) + 4)
#define MATMUL_COOPMAT_SHARED_BYTES(STAGES, TILE_M, TILE_N, BK, PAD, ELEM_BYTES, FM, FN)                       \
  ((STAGES) * ((TILE_M) * MATMUL_COOPMAT_LD_SLICE(BK, PAD) +                                                 \
               ((TILE_N) * MATMUL_COOPMAT_LD_SLICE(BK, PAD) > (BK) * ((TILE_N) + (PAD))                      \
                    ? (TILE_N) * MATMUL_COOPMAT_LD_SLICE(BK, PAD)                                            \
                    : (BK) * ((TILE_N) + (PAD)))) * (ELEM_BYTES) +                                           \
   4 * (FM) * MATMUL_COOPMAT_LD_E(FN) * 4)

#endif
