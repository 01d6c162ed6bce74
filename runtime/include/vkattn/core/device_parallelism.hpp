// How wide a device is, for kernels that must size their own parallelism (split-K decode): the
// workgroups that keep it busy, and the subgroup size the lane-split decode can rely on. Pure
// functions of DeviceInfo, so every vendor's answer is testable without the vendor's GPU.
#pragma once

#include <cstdint>
#include <string>

#include "vkattn/core/device_info.hpp"

namespace vkattn {

// Compute units assumed where the driver reports none (Intel, Apple, unknown vendors): a modest
// discrete GPU, or an integrated one.
constexpr uint32_t kAssumedDiscreteComputeUnits = 32;
constexpr uint32_t kAssumedIntegratedComputeUnits = 8;

// Workgroups one dispatch should launch to fill the device: 4 per compute unit (reported, or
// assumed as above) on GPUs, so each unit holds several to hide memory latency; 32 on CPU drivers,
// where more workgroups only add split-K merge work (measured on lavapipe).
uint32_t busyWorkgroups(const DeviceInfo& info);

// The compute units busyWorkgroups counts with (a CPU driver's: the host's threads), and where
// that number came from.
uint32_t computeUnitsFor(const DeviceInfo& info);
std::string computeUnitsSource(const DeviceInfo& info);

// Fewest keys one split of a split-K decode should cover: below it, merging splits costs more
// than the parallelism gains (1024 on CPU drivers, measured; 256 on GPUs: 8 keys per lane of a
// 32-lane subgroup).
uint32_t minKeysPerSplit(const DeviceInfo& info);

// The subgroup the rows kernel's lane-split decode runs on: its workgroup is exactly one
// subgroup, merged with subgroup arithmetic, so the size must be known when the pipeline is built.
struct LaneSplitSubgroup {
  uint32_t size = 0;      // 0: no lane split on this device (one lane walks each row's keys)
  bool required = false;  // the size varies: the pipeline requires it (subgroup size control)
};
LaneSplitSubgroup laneSplitSubgroup(const DeviceInfo& info);

}  // namespace vkattn
