// How the row kernels (softmax, norms) are laid out on a device: row per subgroup (no barriers)
// on CPU drivers and for short rows on GPUs; a whole workgroup per row for long rows on GPUs.
#pragma once

#include <kernel_interface.h>

#include <cstdint>

#include "vkattn/core/context.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/core/recorder.hpp"

namespace vkattn::detail {

struct RowLayout {
  uint32_t workgroupSize = 64;
  bool rowPerSubgroup = true;
  uint32_t rowsPerGroup = 1;

  SpecConstants constants() const {
    SpecConstants c;
    c.set(SPEC_WORKGROUP_SIZE, workgroupSize)
        .set(ROW_SPEC_ROW_PER_SUBGROUP, rowPerSubgroup)
        .set(ROW_SPEC_ROWS_PER_GROUP, rowsPerGroup);
    return c;
  }
  GroupCount groups(const Context& ctx, uint64_t rows) const { return groupsFor(ctx.device(), rows, rowsPerGroup); }
};

// `passes` is how many times the kernel walks the row (each walk is one loop per lane).
// Throws Unsupported when no layout keeps a lane within the device's loop iteration limit.
RowLayout chooseRowLayout(const Context& ctx, uint64_t cols, uint32_t passes);

}  // namespace vkattn::detail
