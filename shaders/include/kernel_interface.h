// The interface of every kernel beyond its push constants, shared by GLSL and C++: the binding
// number of each storage buffer (set 0) and the id of each specialization constant, by name. The
// shaders declare `layout(binding = NAME)` and `layout(constant_id = NAME)`; the runtime binds and
// specialises by the same names (Bindings, SpecConstants::set), and Pipeline checks both against
// the SPIR-V module it loads, so a swapped pair fails the first test that builds the pipeline.
#ifndef VKATTN_KERNEL_INTERFACE_H
#define VKATTN_KERNEL_INTERFACE_H

// ---- Specialization constants ----
// Id 0 is every kernel's workgroup size (local_size_x_id = SPEC_WORKGROUP_SIZE).
#define SPEC_WORKGROUP_SIZE 0

// Row kernels (row_reduce.glsl: softmax, layer_norm, rms_norm).
#define ROW_SPEC_ROW_PER_SUBGROUP 1  // bool: one row per subgroup, else one per workgroup
#define ROW_SPEC_ROWS_PER_GROUP 2    // uint

// Elementwise kernels (elementwise.glsl: activation, add, swiglu, embedding).
#define ELEMENTWISE_SPEC_VEC4 1        // bool
#define ELEMENTWISE_SPEC_ACTIVATION 2  // uint, activation.comp only

// Matrix products (matmul_common.glsl).
#define MATMUL_SPEC_B_KN 1       // bool: B is [K, N], else [N, K]
#define MATMUL_SPEC_ROWS 2       // uint: rows kernel, output rows per workgroup
#define MATMUL_SPEC_COLS 3       // uint: rows kernel, output columns per invocation
#define MATMUL_SPEC_ALIGNED_A 4  // bool
#define MATMUL_SPEC_ALIGNED_B 5  // bool
#define MATMUL_SPEC_KC 6         // uint: rows kernel, K per step
#define MATMUL_SPEC_FRAGS 7      // uint: coopmat kernel, a subgroup's quadrant is FRAGS x FRAGS fragments
#define MATMUL_SPEC_BK 8         // uint: coopmat kernel, K per staged slice
#define MATMUL_SPEC_STAGES 9     // uint: coopmat kernel, slice buffers in shared memory (1 or 2)
#define MATMUL_SPEC_SPAN 10      // uint: block-format matvec, consecutive pieces of a unit per invocation
#define MATMUL_SPEC_GATED 11     // bool: block-format matvec, y = act(x W_gate^T) * (x W_up^T) from W = [W_gate; W_up]
#define MATMUL_SPEC_X_ROWS 12    // uint: block-format matvec, the rows of x a dispatch holds at most (1 or 8)
#define MATMUL_SPEC_X_NORM 13    // bool: block-format matvec, x normalized by RMSNorm as it loads
#define MATMUL_SPEC_TAIL 14      // uint: block-format matvec, LINEAR_TAIL_*: the step its last workgroup runs

// Fragment layer (fragment.glsl, FRAG_KHR build): the device's cooperative-matrix shape,
// A M x K, B K x N, accumulator M x N (the NV and emulated builds are fixed at 16 x 16 x 16).
#define FRAG_SPEC_M 90
#define FRAG_SPEC_N 91
#define FRAG_SPEC_K 92
// The emulated fragments (FRAG_EMULATED): FRAG_EMULATED_SIZE on each side, over subgroups of
// FRAG_EMULATED_LANES lanes (lavapipe's fixed size; the runtime checks it).
#define FRAG_EMULATED_SIZE 16
#define FRAG_EMULATED_LANES 8

// Attention kernels (attention_common.glsl).
#define ATTN_SPEC_DK 1          // uint: query/key head dim
#define ATTN_SPEC_DV 2          // uint: value head dim
#define ATTN_SPEC_HAS_BAND 3    // bool: causal and/or sliding window
#define ATTN_SPEC_HAS_BIAS 4    // bool
#define ATTN_SPEC_HAS_KEEP 5    // bool
#define ATTN_SPEC_HAS_KEYLEN 6  // bool
#define ATTN_SPEC_WRITE_LSE 7   // bool
#define ATTN_SPEC_ROWS 8        // uint: query rows per invocation (rows) / subgroups per workgroup (coopmat)
#define ATTN_SPEC_KEY_BLOCK 9   // uint: keys per step or tile
#define ATTN_SPEC_ALIGNED 11    // bool: K and V rows start at multiples of 4 elements
#define ATTN_SPEC_SPLIT 12      // bool: rows / fragment kernel writes split-K partial records
// 13: formerly the combine kernel's split count, a push constant now (AttentionParams::lk there)
#define ATTN_SPEC_LANE_KEYS 14  // bool: rows kernel decode mode
#define ATTN_SPEC_STAGES 15     // uint: coopmat kernel, K/V tile buffers in shared memory (1 or 2)
#define ATTN_SPEC_SUBGROUP_SIZE 16  // uint: coopmat and decode kernels, the (fixed) subgroup size
#define ATTN_SPEC_SOFTCAP 17        // float: logit softcap c (c * tanh(s / c)); 0 turns it off
#define ATTN_SPEC_HAS_SINKS 18      // bool: a per-head sink logit joins each row's softmax denominator
#define ATTN_SPEC_HAS_ALIBI 19      // bool: -slope * |i + Lk - Lq - j| added to the logits
#define ATTN_SPEC_ALIBI_STRIDE_B 20 // uint: slopes per batch (Hq: [B, Hq] slopes; 0: [Hq] shared)
#define ATTN_SPEC_ROW_LANES 21      // uint: lanes sharing one head vector: a query row's (tiled, 1..8), a key's (decode, 1..subgroup)
#define ATTN_SPEC_PAGE_SIZE 22      // uint: rows and decode kernels, keys per block of a paged K/V cache (0: dense K/V)
#define ATTN_SPEC_ALIGN_KEYLEN 23   // bool: the bottom-right diagonal ends at each batch's key length
#define ATTN_SPEC_VARLEN 24         // bool: rows kernel and its combine, a packed batch of sequences (binding SEQS)
#define ATTN_SPEC_QO_ALIGNED 25     // bool: rows kernel, Q and O rows start at multiples of 4 elements
#define ATTN_SPEC_LOCKSTEP_SUBGROUPS 26  // bool: fragment kernels, subgroups run in lockstep (CPU drivers): subgroup barriers are memory barriers alone
#define ATTN_SPEC_SHARED_Q 27        // uint 0 or 1: fragment kernel, Q's fragments reloaded from shared memory each tile instead of held in registers (large head dims)
#define ATTN_SPEC_V_TRANSPOSED 28    // uint 0 or 1: fragment kernel, V tiles staged transposed ([d][key]) so P V's B fragments load along keys
#define ATTN_SPEC_SOFTMAX_REGISTERS 29  // uint: fragment kernel, ATTN_SOFTMAX_*: where S and P live during the softmax
#define ATTN_SPEC_FRAG_LANE_FREE 30     // uint: fragment kernel, lane-index bits that do not change an accumulator element's row
#define ATTN_SPEC_FRAG_ELEM_FREE 31     // uint: fragment kernel, element-index bits that do not change its row
// Where the fragment kernel keeps S and P (ATTN_SPEC_SOFTMAX_REGISTERS): both in shared memory; S in
// its accumulator fragments (row-wise work through shuffles, P through shared memory); both in
// registers (P's A fragments copied element by element from S's, whose layouts agree).
#define ATTN_SOFTMAX_SHARED 0
#define ATTN_SOFTMAX_S_REGISTERS 1
#define ATTN_SOFTMAX_REGISTERS 2

// ---- Bindings (set 0), one block per kernel; *_BINDING_COUNT is the number of buffers ----
// copy.comp
#define COPY_BINDING_X 0
#define COPY_BINDING_Y 1
#define COPY_BINDING_COUNT 2

// encode_storage.comp
#define ENCODE_BINDING_X 0
#define ENCODE_BINDING_Y 1
#define ENCODE_BINDING_STATUS 2
#define ENCODE_BINDING_COUNT 3

// softmax.comp
#define SOFTMAX_BINDING_X 0
#define SOFTMAX_BINDING_Y 1
#define SOFTMAX_BINDING_MASK 2
#define SOFTMAX_BINDING_STATUS 3
#define SOFTMAX_BINDING_COUNT 4

// layer_norm.comp
#define LAYER_NORM_BINDING_X 0
#define LAYER_NORM_BINDING_Y 1
#define LAYER_NORM_BINDING_WEIGHT 2
#define LAYER_NORM_BINDING_BIAS 3
#define LAYER_NORM_BINDING_STATUS 4
#define LAYER_NORM_BINDING_COUNT 5

// rms_norm.comp
#define RMS_NORM_BINDING_X 0
#define RMS_NORM_BINDING_Y 1
#define RMS_NORM_BINDING_WEIGHT 2
#define RMS_NORM_BINDING_STATUS 3
#define RMS_NORM_BINDING_RESIDUAL 4
#define RMS_NORM_BINDING_COUNT 5

// rope.comp
#define ROPE_BINDING_X 0
#define ROPE_BINDING_Y 1
#define ROPE_BINDING_PHASE_STEP 2
#define ROPE_BINDING_POSITIONS 3
#define ROPE_BINDING_STATUS 4
#define ROPE_BINDING_COUNT 5

// rope_append.comp
#define ROPE_APPEND_BINDING_QKV 0
#define ROPE_APPEND_BINDING_KEYS 1
#define ROPE_APPEND_BINDING_VALUES 2
#define ROPE_APPEND_BINDING_PHASE_STEP 3
#define ROPE_APPEND_BINDING_STATUS 4
#define ROPE_APPEND_BINDING_Q_NORM 5
#define ROPE_APPEND_BINDING_K_NORM 6
#define ROPE_APPEND_BINDING_POSITIONS 7  // int: with ROPE_APPEND_DEVICE_POSITIONS
#define ROPE_APPEND_BINDING_COUNT 8
// RopeAppendParams::flags
#define ROPE_APPEND_INTERLEAVED 1u
#define ROPE_APPEND_HEAD_NORMS 2u
#define ROPE_APPEND_DEVICE_POSITIONS 4u    // row (b, l)'s position is positions[b * positionsStrideB + l]
#define ROPE_APPEND_CACHE_AT_POSITIONS 8u  // ... and its key and value land in the caches' row of that position

// argmax.comp
#define ARGMAX_BINDING_X 0
#define ARGMAX_BINDING_IDS 1
#define ARGMAX_BINDING_STATUS 2
#define ARGMAX_BINDING_COUNT 3

// sample_tokens.comp
#define SAMPLE_BINDING_LOGITS 0
#define SAMPLE_BINDING_UNIFORMS 1
#define SAMPLE_BINDING_IDS 2
#define SAMPLE_BINDING_STATUS 3
#define SAMPLE_BINDING_COUNT 4
// The most likely tokens the kernel sorts per row; a draw that lands beyond them is left to the
// host (ids[r] = -1).
#define SAMPLE_CANDIDATES 1024

// fragment_layout_probe.comp: out[0] the accumulator's elements per lane, out[1] the A fragment's,
// out[2] the subgroup size, then PROBE_MAX_ELEMS codes (row * columns + column) per lane for the
// accumulator (lanes 0..PROBE_MAX_LANES-1), then as many for A.
#define PROBE_BINDING_OUT 0
#define PROBE_BINDING_COUNT 1
#define PROBE_MAX_ELEMS 64
#define PROBE_MAX_LANES 128
#define PROBE_WORDS (3 + 2 * PROBE_MAX_LANES * PROBE_MAX_ELEMS)

// activation.comp
#define ACTIVATION_BINDING_X 0
#define ACTIVATION_BINDING_Y 1
#define ACTIVATION_BINDING_STATUS 2
#define ACTIVATION_BINDING_COUNT 3

// add.comp
#define ADD_BINDING_A 0
#define ADD_BINDING_B 1
#define ADD_BINDING_Y 2
#define ADD_BINDING_STATUS 3
#define ADD_BINDING_COUNT 4

// swiglu.comp
#define SWIGLU_BINDING_GATE 0
#define SWIGLU_BINDING_UP 1
#define SWIGLU_BINDING_Y 2
#define SWIGLU_BINDING_STATUS 3
#define SWIGLU_BINDING_COUNT 4

// embedding.comp
#define EMBEDDING_BINDING_TABLE 0
#define EMBEDDING_BINDING_IDS 1
#define EMBEDDING_BINDING_POSITIONS 2
#define EMBEDDING_BINDING_OUT 3
#define EMBEDDING_BINDING_STATUS 4
#define EMBEDDING_BINDING_COUNT 5

// matmul_rows, matmul_tiled, matmul_naive and matmul_coopmat
#define MATMUL_BINDING_A 0
#define MATMUL_BINDING_B 1
#define MATMUL_BINDING_C 2
#define MATMUL_BINDING_BIAS 3
#define MATMUL_BINDING_RESIDUAL 4
#define MATMUL_BINDING_STATUS 5
#define MATMUL_BINDING_COUNT 6
// x quantized to 8 bits (x_q8.glsl): the integer-dot matrix-vector kernel and the quantizing
// kernel before it, which bind one more buffer than the other matmul kernels.
#define MATMUL_BINDING_X_Q8 6
#define MATMUL_INT8_BINDING_COUNT 7
// The RMSNorm weight the block-format matrix-vector kernel (linear_q_matvec) normalizes x by
// (MATMUL_SPEC_X_NORM).
#define MATMUL_BINDING_X_NORM 6
// The step over whole output rows the float matrix-vector kernel's last workgroup runs
// (linear_tail.glsl): that kernel binds these too.
#define MATMUL_BINDING_TAIL_COUNTER 7
#define MATMUL_BINDING_TAIL_PARAMS 8
#define MATMUL_BINDING_TAIL_KEYS 9
#define MATMUL_BINDING_TAIL_VALUES 10
#define MATMUL_BINDING_TAIL_PHASE 11
#define MATMUL_BINDING_TAIL_NORM 12
#define MATMUL_BINDING_TAIL_K_NORM 13
#define MATMUL_BINDING_TAIL_POSITIONS 14
#define MATMUL_MATVEC_BINDING_COUNT 15
#define LINEAR_TAIL_NONE 0
#define LINEAR_TAIL_ROPE_APPEND 1
#define LINEAR_TAIL_POST_NORM 2

// the fused attention kernels: attention_rows, attention_tiled, attention_coopmat
#define ATTN_BINDING_Q 0
#define ATTN_BINDING_K 1
#define ATTN_BINDING_V 2
#define ATTN_BINDING_O 3
#define ATTN_BINDING_LSE 4
#define ATTN_BINDING_BIAS 5
#define ATTN_BINDING_KEEP 6
#define ATTN_BINDING_KEYLEN 7
#define ATTN_BINDING_STATUS 8
#define ATTN_BINDING_SINKS 9   // f32 [Hq]
#define ATTN_BINDING_ALIBI 10  // f32 [Hq] or [B, Hq]
#define ATTN_BINDING_PAGES 11  // i32 [B, Lk / PAGE_SIZE]: the cache block of each page of keys (rows kernel)
#define ATTN_BINDING_SEQS 12   // i32 [2 (B + 1) + 1]: cu_seqlens_q, cu_seqlens_k of a packed batch (VARLEN), a group multiplier
#define ATTN_BINDING_COUNT 13

// attention_scores.comp (logits of the chosen heads)
#define ATTN_SCORES_BINDING_Q 0
#define ATTN_SCORES_BINDING_K 1
#define ATTN_SCORES_BINDING_S 2
#define ATTN_SCORES_BINDING_HEADS 3
#define ATTN_SCORES_BINDING_BIAS 4
#define ATTN_SCORES_BINDING_KEEP 5
#define ATTN_SCORES_BINDING_KEYLEN 6
#define ATTN_SCORES_BINDING_STATUS 7
#define ATTN_SCORES_BINDING_ALIBI 8
#define ATTN_SCORES_BINDING_COUNT 9

// attention_pv.comp (the naive path's P V)
#define ATTN_PV_BINDING_P 0
#define ATTN_PV_BINDING_V 1
#define ATTN_PV_BINDING_O 2
#define ATTN_PV_BINDING_STATUS 3
#define ATTN_PV_BINDING_COUNT 4

// attention_combine.comp (split-K merge)
#define ATTN_COMBINE_BINDING_PARTIALS 0
#define ATTN_COMBINE_BINDING_O 1
#define ATTN_COMBINE_BINDING_LSE 2
#define ATTN_COMBINE_BINDING_SINKS 3
#define ATTN_COMBINE_BINDING_SEQS 4  // as ATTN_BINDING_SEQS
#define ATTN_COMBINE_BINDING_COUNT 5

// additive_project.comp
#define ADDITIVE_PROJECT_BINDING_X 0
#define ADDITIVE_PROJECT_BINDING_W 1
#define ADDITIVE_PROJECT_BINDING_Y 2
#define ADDITIVE_PROJECT_BINDING_STATUS 3
#define ADDITIVE_PROJECT_BINDING_COUNT 4

// additive_scores.comp
#define ADDITIVE_SCORES_BINDING_QP 0
#define ADDITIVE_SCORES_BINDING_KP 1
#define ADDITIVE_SCORES_BINDING_VEC 2
#define ADDITIVE_SCORES_BINDING_BIAS 3
#define ADDITIVE_SCORES_BINDING_KEEP 4
#define ADDITIVE_SCORES_BINDING_KEYLEN 5
#define ADDITIVE_SCORES_BINDING_SCORES 6
#define ADDITIVE_SCORES_BINDING_STATUS 7
#define ADDITIVE_SCORES_BINDING_COUNT 8

// additive_pv.comp
#define ADDITIVE_PV_BINDING_WEIGHTS 0
#define ADDITIVE_PV_BINDING_VALUE 1
#define ADDITIVE_PV_BINDING_OUT 2
#define ADDITIVE_PV_BINDING_STATUS 3
#define ADDITIVE_PV_BINDING_COUNT 4

#endif  // VKATTN_KERNEL_INTERFACE_H
