// How each fused attention kernel is sized for a device and a problem: rows per invocation or per
// subgroup, keys per step or tile, workgroup and subgroup sizes, shared-memory stages. Each
// function returns the first shape the device can run or throws Unsupported saying why none fits.
#pragma once

#include <cstdint>
#include <string>

#include "attention_plan.hpp"

namespace vkattn::detail {

// x rounded up to a multiple of `to`.
uint64_t roundUp(int64_t x, uint64_t to);

AttentionKernelShape rowsShape(Context& ctx, const AttentionPlan& plan);
AttentionKernelShape tiledShape(Context& ctx, const AttentionPlan& plan);
AttentionKernelShape fragmentShape(Context& ctx, const AttentionPlan& plan, bool emulated);
AttentionKernelShape coopmat2Shape(Context& ctx, const AttentionPlan& plan);
AttentionKernelShape coopmat2WorkgroupShape(Context& ctx, const AttentionPlan& plan);

// Why the decode kernel (attention_decode.comp) cannot take this plan on this device, or empty
// when it can: it needs a known subgroup size with shuffles, q's dtype for K/V, no packed batch,
// head dims in whole 16-byte words and K/V rows starting on word boundaries.
std::string decodeRefusal(const Context& ctx, const AttentionPlan& plan);
AttentionKernelShape decodeShape(Context& ctx, const AttentionPlan& plan);

}  // namespace vkattn::detail
