#include "vkattn/core/device_parallelism.hpp"

#include <algorithm>
#include <thread>

namespace vkattn {

uint32_t computeUnitsFor(const DeviceInfo& info) {
  if (info.computeUnits) return info.computeUnits;
  if (info.kind == DeviceKind::Cpu) return std::max(1u, std::thread::hardware_concurrency());
  return info.kind == DeviceKind::Discrete ? kAssumedDiscreteComputeUnits : kAssumedIntegratedComputeUnits;
}

std::string computeUnitsSource(const DeviceInfo& info) {
  if (info.computeUnits) return info.computeUnitsSource;
  return info.kind == DeviceKind::Cpu ? "host threads, CPU driver" : "assumed: the driver reports none";
}

uint32_t busyWorkgroups(const DeviceInfo& info) {
  if (info.kind == DeviceKind::Cpu) return 32;
  return 4 * computeUnitsFor(info);
}

uint32_t minKeysPerSplit(const DeviceInfo& info) {
  return info.kind == DeviceKind::Cpu ? 1024 : 256;
}

LaneSplitSubgroup laneSplitSubgroup(const DeviceInfo& info) {
  if (!info.subgroupArithmetic) return {};
  if (info.minSubgroupSize == info.maxSubgroupSize) {
    const uint32_t size = info.subgroupSize;
    return size >= 4 && size <= 64 ? LaneSplitSubgroup{size, false} : LaneSplitSubgroup{};
  }
  if (!info.computeSubgroupSizeControl) return {};
  // Sizes are powers of two; 32 where offered (NVIDIA's width, AMD's wave32), 16 on Intel (SIMD32
  // halves the registers per lane, and the decode kernel's lane state would spill), else the
  // nearest offered size inside 4..64.
  const uint32_t preferred = info.vendorId == kVendorIntel ? 16 : 32;
  const uint32_t size = std::clamp<uint32_t>(preferred, std::max<uint32_t>(info.minSubgroupSize, 4),
                                             std::min<uint32_t>(info.maxSubgroupSize, 64));
  if (size < info.minSubgroupSize || size > info.maxSubgroupSize) return {};
  return {size, true};
}

}  // namespace vkattn
