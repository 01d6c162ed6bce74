// One row per op: what the rest of the project reads about an op besides its call. The tolerance
// its outputs keep against the double-precision reference (the tests, `vkattn conformance` and
// the references' toleranceFor read it here) and the shapes `vkattn devices --pipelines` builds
// its kernels at (which the compiler budgets then cover). Each row is written once, in the op's
// own source (runtime/src/ops/<op>.cpp, VKATTN_OP_ROW); the build collects them into opRows().
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "vkattn/core/context.hpp"
#include "vkattn/core/tolerance.hpp"

namespace vkattn {

// The op on tensors of one representative shape, so that the pipelines built are exactly the
// ones the op would run there.
struct CatalogShape {
  std::string label;  // what the op was asked, e.g. "softmax f16" or "attention f16 D128 causal"
  std::function<void(Context&)> build;
};

struct OpRow {
  std::string name;    // the op's kernel name in reports (its .comp's stem where it has one kernel)
  Tolerance f32, f16;  // for outputs stored as f32, as f16
  std::vector<CatalogShape> catalog;

  // f32 or f16's tolerance (an Error for another storage type).
  const Tolerance& toleranceFor(DType storage) const;
};

// Every op's row, in name order.
const std::vector<OpRow>& opRows();
// The row named `name` (an Error where no op has that name).
const OpRow& opRow(std::string_view name);

}  // namespace vkattn
