// The fused attention kernels, one row each: what each reads, whether it splits long key ranges,
// its module, its shape (attention_shapes), the query rows a workgroup covers and how its loop
// grows with the keys. attention() reads everything it does per kernel from this table.
#pragma once

#include <cstdint>
#include <string>

#include "attention_plan.hpp"
#include "vkattn/ops/attention_options.hpp"

namespace vkattn::detail {

// How one invocation's loop count grows with its keys: `perStep` iterations per `keysPerStep`
// keys, plus `fixed` once.
struct KeyLoop {
  uint64_t keysPerStep = 1, perStep = 1, fixed = 0;
  uint64_t iterations(uint64_t keys) const { return (keys + keysPerStep - 1) / keysPerStep * perStep + fixed; }
};

struct AttentionKernel {
  AttentionVariant variant;
  bool readsStorageFormats;  // K/V in bf16, Q8_0 or Q4_0, and packed batches (cuSeqlensQ)
  bool readsPagedCache;      // a block table over a paged K/V cache
  bool splitsKeys;           // long key ranges split over workgroups, merged by attention_combine
  AttentionKernelShape (*shape)(Context& ctx, const AttentionPlan& plan);
  ShaderId (*module)(const Context& ctx, const AttentionPlan& plan);
  // Query rows one workgroup covers; kernels that pack a KV head's query heads (GQA) count the
  // packed rows, per (batch, KV head).
  uint64_t (*rowsPerWorkgroup)(const AttentionKernelShape& shape);
  bool (*packsHeads)(const AttentionKernelShape& shape);
  KeyLoop (*keyLoop)(const AttentionPlan& plan, const AttentionKernelShape& shape);
};

// The row of a concrete variant (not Auto).
const AttentionKernel& attentionKernel(AttentionVariant variant);

}  // namespace vkattn::detail
