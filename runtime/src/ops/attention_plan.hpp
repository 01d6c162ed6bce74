// Argument checking and kernel parameters shared by the attention paths (fused, naive, weights):
// one function validates q, k, v and the options and turns them into AttentionParams, spec
// constants and the optional buffers every attention shader binds.
#pragma once

#include <kernel_interface.h>
#include <push_constants.h>

#include <string>

#include "shader_id.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/core/tensor.hpp"
#include "vkattn/ops/attention_options.hpp"

namespace vkattn::detail {

// Head dims the rows and tiled kernels take (1..kMaxHeadDim); DeepSeek's MLA needs 576.
constexpr int64_t kMaxHeadDim = 576;

struct AttentionPlan {
  pc::AttentionParams params{};
  int64_t batch = 0, headsQ = 0, headsKv = 0, lq = 0, lk = 0, dk = 0, dv = 0;
  DType dtype = DType::F32;    // q and out
  DType kvDtype = DType::F32;  // k and v: q's dtype, or a storage format the rows kernel decodes
  bool hasBand = false;
  bool alignToKeyLengths = false;  // MaskAlignment::BottomRightOfKeyLengths
  bool kvAligned = false;          // every K and V row starts at a multiple of 4 elements (vec4 loads)
  // Optional inputs; q's buffer stands in for an absent one (the kernel never reads it).
  const Buffer* bias = nullptr;
  const Buffer* keep = nullptr;
  const Buffer* keyLengths = nullptr;
  const Buffer* sinks = nullptr;
  const Buffer* alibi = nullptr;
  const Buffer* pages = nullptr;
  uint32_t pageSize = 0;  // keys per cache block of a paged K/V (0: dense)
  // A packed batch of sequences: batch, lq and lk are then the sequence count and the longest
  // sequence's rows and keys; totalQ the packed query rows; sequences holds cu_seqlens_q then
  // cu_seqlens_k for the kernel's SEQS binding (set by the caller).
  bool varlen = false;
  int64_t totalQ = 0;
  std::vector<int32_t> sequences;
  const Buffer* seqs = nullptr;
  bool hasBias = false, hasKeep = false, hasKeyLengths = false, hasSinks = false, hasAlibi = false;
  float softcap = 0.0f;
  uint32_t alibiStrideB = 0;  // slopes per batch: Hq for [B, Hq] slopes, 0 for [Hq]
};

// Validates q, k, v and options (not out or lse) and fills everything but the output strides.
AttentionPlan planAttention(const Context& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                            const AttentionOptions& options);

// Throws Unsupported naming k when k and v are stored in a format `path` does not read (only the
// rows kernel decodes bf16, Q8_0 and Q4_0).
void requireDenseKvFormat(const AttentionPlan& plan, const std::string& path);

// Throws Unsupported naming cuSeqlensQ for a packed batch where `path` does not read one.
void requireDenseBatch(const AttentionPlan& plan, const std::string& path);

// The rows kernel's module for the plan's q and K/V storage.
ShaderId rowsShader(const AttentionPlan& plan);

// Checks `out` ([B, Hq, Lq, Dv], q's dtype, head dim contiguous) and sets the o* strides.
void setAttentionOutput(const Context& ctx, AttentionPlan& plan, const TensorView& out, const std::string& name);

// Checks an lse output view (f32 [B, Hq, Lq], contiguous).
void checkLse(const AttentionPlan& plan, const TensorView& lse);

struct AttentionKernelShape {
  uint32_t workgroup = 64;
  uint32_t rows = 1;      // query rows per invocation (rows kernel)
  uint32_t keyBlock = 4;  // keys per step / per tile
  bool writeLse = false;
  bool split = false;                           // rows / fragment kernel writes split-K partial records
  bool laneKeys = false;                        // rows kernel decode mode: lanes share rows, split keys
  uint32_t stages = 2;                          // fragment kernel: K/V buffers in shared memory
  uint32_t subgroup = 32;                       // fragment kernel: the (fixed) subgroup size
  uint32_t fragM = 16, fragN = 16, fragK = 16;  // fragment kernel: the matrix fragments' shape
  bool lockstepSubgroups = false;               // fragment kernels: subgroup barriers as memory barriers (CPU drivers)
  bool sharedQ = false;                         // fragment kernel: Q's fragments from shared memory each tile
  bool vTransposed = false;                     // fragment kernel: V tiles staged [d][key]
  uint32_t requiredSubgroupSize = 0;            // pipeline requires this subgroup size (0: the device's own)
  uint32_t rowLanes = 1;                        // tiled kernel: lanes sharing one query row's head dim
  uint32_t softmax = 0;                         // fragment kernel: ATTN_SOFTMAX_*, where S and P live
  uint32_t fragLaneFree = 0, fragElemFree = 0;  // fragment kernel: its accumulator layout (fragment_layout.hpp)
};

SpecConstants attentionConstants(const AttentionPlan& plan, const AttentionKernelShape& shape);

// The output's shape [B, Hq, Lq, Dv] for the allocating overloads (checks q and v first).
Shape attentionOutputShape(const TensorView& q, const TensorView& v);

}  // namespace vkattn::detail
