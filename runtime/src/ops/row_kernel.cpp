#include "row_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "checks.hpp"
#include "vkattn/core/error.hpp"

namespace vkattn::detail {
namespace {

uint32_t nextPowerOfTwo(uint64_t v) {
  uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

}  // namespace

void requireRowOpTensors(const Context& ctx, const TensorView& x, const TensorView& y, int64_t maxRank) {
  requireTensor("x", x);
  requireTensor("y", y);
  requireDtype("x", x, {DType::F32, DType::F16});
  requireRank("x", x, 1, maxRank);
  requireContiguous("x", x);
  requireContiguous("y", y);
  requireShape("y", y, x.shape);
  requireSameDtype("y", y, "x", x);
  requireDtypeSupported(ctx, "x", x);
  requireFitsDevice(ctx, "x", x);
  requireFitsDevice(ctx, "y", y);
}

void requireNormParameter(const Context& ctx, const std::string& name, const TensorView& v, int64_t cols,
                          const std::string& likeName, const TensorView& like) {
  requireTensor(name, v);
  requireContiguous(name, v);
  requireShape(name, v, {cols});
  requireSameDtype(name, v, likeName, like);
  requireFitsDevice(ctx, name, v);
}

void requireNormEps(const std::string& name, float eps) {
  if (!(eps >= 0.0f) || !std::isfinite(eps)) throw InvalidArgument(name, "must be a finite value >= 0");
}

RowLayout chooseRowLayout(const Context& ctx, uint64_t cols, uint32_t passes) {
  const auto& info = ctx.info();
  const uint32_t subgroup = std::max<uint32_t>(info.subgroupSize, 1);
  const uint32_t maxWorkgroup = std::min<uint32_t>(1024, info.maxWorkgroupInvocations);
  // Lanes one row needs so that no lane loops more often than the driver allows (with margin).
  uint64_t lanesNeeded = 1;
  if (info.loopIterationLimit) {
    const uint64_t budget = info.loopIterationLimit - info.loopIterationLimit / 16;
    lanesNeeded = (cols * passes + budget - 1) / budget;
    if (lanesNeeded > maxWorkgroup)
      throw Unsupported("rows of " + std::to_string(cols) + " columns exceed what " + info.name +
                        " can loop over in one workgroup; at most " + std::to_string(budget * maxWorkgroup / passes) +
                        " columns");
  }
  RowLayout layout;
  const bool shortRow = ctx.profile() == KernelProfile::CpuDriver ? cols <= 16384 : cols <= 1024;
  if (shortRow && lanesNeeded <= subgroup) {
    // CPU drivers run a subgroup as one SIMD loop on one thread and barriers are costly context
    // switches, so a row per subgroup; on GPUs short rows waste a wide workgroup.
    layout.rowPerSubgroup = true;
    layout.rowsPerGroup = ctx.profile() == KernelProfile::CpuDriver ? 4 : std::max<uint32_t>(1, 256 / subgroup);
    layout.workgroupSize = subgroup * layout.rowsPerGroup;
    return layout;
  }
  layout.rowPerSubgroup = false;
  layout.rowsPerGroup = 1;
  const uint32_t base = ctx.profile() == KernelProfile::CpuDriver ? 64 : 256;
  layout.workgroupSize = std::min(maxWorkgroup, std::max(base, nextPowerOfTwo(lanesNeeded)));
  // Shared partials hold one value per subgroup (row_reduce.glsl: 128 slots).
  while (layout.workgroupSize / std::max<uint32_t>(info.minSubgroupSize, 1) > 128) layout.workgroupSize /= 2;
  return layout;
}

}  // namespace vkattn::detail
