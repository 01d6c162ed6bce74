// How the row kernels (softmax, norms) are laid out on a device: row per subgroup (no barriers)
// on CPU drivers and for short rows on GPUs; a whole workgroup per row for long rows on GPUs; and
// the one way they are recorded.
#pragma once

#include <kernel_interface.h>

#include <cstdint>
#include <string>
#include <vector>

#include "op_dispatch.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/core/recorder.hpp"
#include "vkattn/ops/row_ops.hpp"

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

// The checks every row op makes of its input x (f32 or f16, contiguous, rank 1..maxRank) and its
// output y (x's shape and dtype, contiguous), each fitting the device.
void requireRowOpTensors(const Context& ctx, const TensorView& x, const TensorView& y, int64_t maxRank);
// A norm's weight or bias `name`: [cols] of `like`'s dtype (named likeName), contiguous from its
// buffer's start (layerNorm, rmsNorm, and the norms linear() and ropeAppend() fold in).
void requireNormParameter(const Context& ctx, const std::string& name, const TensorView& v, int64_t cols,
                          const std::string& likeName, const TensorView& like);
// A norm's epsilon `name`: finite and >= 0.
void requireNormEps(const std::string& name, float eps);

// rmsNorm() whose NaN reports name x, its weight and its residual as `names` says (linear()'s
// inputNorm names the weight after its own argument).
void rmsNormNaming(Context& ctx, const TensorView& x, const TensorView& y, const RmsNormOptions& options,
                   std::vector<std::string> names);

// A row kernel over p.rows rows of p.cols columns: laid out for `passes` walks of a row, recorded
// with a status slot naming `inputs`, then flushed. `op` is the report's name, `modules` the kernel's
// f32 and f16 modules.
template <typename Push>
void runRowKernel(Context& ctx, const std::string& op, const StorageVariants& modules, DType dtype, uint32_t passes,
                  uint32_t bindingCount, std::initializer_list<Bind> buffers, Push& p, std::vector<std::string> inputs,
                  uint32_t statusBinding) {
  const RowLayout layout = chooseRowLayout(ctx, p.cols, passes);
  recordOp(ctx, {modules.of(dtype), bindingCount, layout.constants()}, buffers, p, layout.groups(ctx, p.rows),
           {op, std::move(inputs), statusBinding});
  ctx.flush();
}

}  // namespace vkattn::detail
